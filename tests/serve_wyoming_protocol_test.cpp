// The Wyoming framing (wyoming_protocol.h): events in and out, pieces of any size, the data section
// over the header's data, every malformed header and length, and a seeded mutation fuzz loop.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tts/serve/wyoming_protocol.h"

using nlohmann::json;
using namespace tts::serve::wyoming;

namespace {

std::vector<Event> parse_all(const std::string& bytes, EventParser& parser) {
  std::vector<Event> events;
  parser.feed(bytes.data(), bytes.size(), events);
  return events;
}

// The parser's error for `bytes` fed at once ("" if there was none).
std::string error_of(const std::string& bytes, FrameLimits limits = {}) {
  EventParser parser(limits);
  parse_all(bytes, parser);
  return parser.error();
}

Event audio_chunk() {
  Event e;
  e.type = "audio-chunk";
  e.data = {{"rate", 16000}, {"width", 2}, {"channels", 1}, {"timestamp", 125}};
  e.payload = std::string("\x01\x00\xff\x7f\x00\x80\n\x00", 8);  // a '\n' inside the payload too
  return e;
}

TEST(WyomingProtocol, RoundTripsEventsWithDataAndPayload) {
  Event describe;
  describe.type = "describe";
  Event synth;
  synth.type = "synthesize";
  synth.data = {{"text", "Grüße, \"quoted\"\nline"}, {"voice", {{"name", "default"}}}};
  std::string bytes = to_bytes(describe) + to_bytes(synth) + to_bytes(audio_chunk());

  EventParser parser;
  auto events = parse_all(bytes, parser);
  ASSERT_FALSE(parser.failed()) << parser.error();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, "describe");
  EXPECT_TRUE(events[0].data.is_object());
  EXPECT_TRUE(events[0].data.empty());
  EXPECT_EQ(events[1].type, "synthesize");
  EXPECT_EQ(events[1].data, synth.data);
  EXPECT_EQ(events[2].data, audio_chunk().data);
  EXPECT_EQ(events[2].payload, audio_chunk().payload);
  EXPECT_EQ(events[2].version, kProtocolVersion);
  EXPECT_TRUE(parser.at_boundary());
}

TEST(WyomingProtocol, WritesAHeaderLineThenDataThenPayload) {
  std::string bytes = to_bytes(audio_chunk());
  auto newline = bytes.find('\n');
  json header = json::parse(bytes.substr(0, newline));
  EXPECT_EQ(header["type"], "audio-chunk");
  EXPECT_EQ(header["version"], kProtocolVersion);
  EXPECT_FALSE(header.contains("data"));  // written as its own section, as rhasspy/wyoming does
  std::size_t data_length = header["data_length"];
  EXPECT_EQ(json::parse(bytes.substr(newline + 1, data_length)), audio_chunk().data);
  EXPECT_EQ(header["payload_length"], 8);
  EXPECT_EQ(bytes.size(), newline + 1 + data_length + 8);

  Event bare;
  bare.type = "synthesize-stopped";
  EXPECT_EQ(json::parse(to_bytes(bare)),
            json({{"type", "synthesize-stopped"}, {"version", kProtocolVersion}}));
}

TEST(WyomingProtocol, ByteByByteGivesTheSameEvents) {
  std::string bytes;
  for (int i = 0; i < 3; ++i) bytes += to_bytes(audio_chunk());
  bytes += "{\"type\": \"describe\"}\n";
  EventParser parser;
  std::vector<Event> events;
  for (char c : bytes) {
    ASSERT_TRUE(parser.feed(&c, 1, events)) << parser.error();
  }
  ASSERT_EQ(events.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(events[i].data, audio_chunk().data);
    EXPECT_EQ(events[i].payload, audio_chunk().payload);
  }
  EXPECT_EQ(events[3].type, "describe");
  EXPECT_TRUE(parser.at_boundary());
}

TEST(WyomingProtocol, AnEventIsOutOnlyWhenItsLastByteIsIn) {
  std::string bytes = to_bytes(audio_chunk());
  EventParser parser;
  std::vector<Event> events;
  ASSERT_TRUE(parser.feed(bytes.data(), bytes.size() - 1, events));
  EXPECT_TRUE(events.empty());
  EXPECT_FALSE(parser.at_boundary());  // a stream that ended here was truncated
  ASSERT_TRUE(parser.feed(bytes.data() + bytes.size() - 1, 1, events));
  EXPECT_EQ(events.size(), 1u);
}

TEST(WyomingProtocol, DataSectionOverridesTheHeadersData) {
  std::string section = R"({"text": "from the section", "extra": {"b": 2}})";
  std::string bytes =
      R"({"type": "synthesize", "data": {"text": "from the header", "voice": {"name": "v"}, )"
      R"("extra": {"a": 1}}, "data_length": )" +
      std::to_string(section.size()) + "}\n" + section;
  EventParser parser;
  auto events = parse_all(bytes, parser);
  ASSERT_EQ(events.size(), 1u) << parser.error();
  EXPECT_EQ(events[0].data["text"], "from the section");
  EXPECT_EQ(events[0].data["voice"]["name"], "v");       // kept from the header
  EXPECT_EQ(events[0].data["extra"], json({{"b", 2}}));  // replaced whole, not merged
}

TEST(WyomingProtocol, AcceptsNullsCrLfAndZeroLengths) {
  EventParser parser;
  auto events = parse_all(
      "{\"type\": \"a\", \"data\": null, \"data_length\": null, \"payload_length\": 0}\r\n"
      "{\"type\": \"b\", \"data_length\": 0}\n",
      parser);
  ASSERT_EQ(events.size(), 2u) << parser.error();
  EXPECT_TRUE(events[0].data.is_object());
  EXPECT_EQ(events[1].type, "b");
}

TEST(WyomingProtocol, EveryMalformedHeaderIsNamed) {
  FrameLimits small{100, 50, 60};
  EXPECT_NE(error_of(std::string(101, ' '), small).find("longer than the limit of 100"),
            std::string::npos);  // caught before any '\n' arrives
  std::string exactly = "{\"type\":\"x\"}";
  exactly.insert(1, 100 - exactly.size(), ' ');  // a header line of exactly the limit
  EXPECT_EQ(error_of(exactly + "\n", small), "");
  EXPECT_NE(error_of(" " + exactly + "\n", small).find("longer"), std::string::npos);
  EXPECT_NE(error_of("not json\n").find("header line is not JSON"), std::string::npos);
  EXPECT_NE(error_of("\n").find("header line is not JSON"), std::string::npos);
  EXPECT_NE(error_of("{\"type\": \"x\"} trailing\n").find("not JSON"), std::string::npos);
  EXPECT_NE(error_of("[\"type\", \"x\"]\n").find("not a JSON object (array)"), std::string::npos);
  EXPECT_NE(error_of("{\"data\": {}}\n").find("no \"type\""), std::string::npos);
  EXPECT_NE(error_of("{\"type\": 5}\n").find("\"type\" is not a string (number)"),
            std::string::npos);
  EXPECT_NE(error_of("{\"type\": \"\"}\n").find("\"type\" is empty"), std::string::npos);
  EXPECT_NE(error_of("{\"type\": \"x\", \"data\": [1]}\n").find("\"data\" is not a JSON object"),
            std::string::npos);
  EXPECT_NE(error_of("{\"type\": \"x\", \"data\": \"s\"}\n").find("not a JSON object (string)"),
            std::string::npos);
  EXPECT_NE(error_of("{\"type\": \"x\\ud800\"}\n").find("not JSON"), std::string::npos);
  EXPECT_NE(error_of("{\"type\": \"\xff\"}\n").find("not JSON"), std::string::npos);  // not UTF-8
}

TEST(WyomingProtocol, EveryBadLengthIsNamed) {
  FrameLimits small{1000, 50, 60};
  auto with = [&](const std::string& field, const std::string& value) {
    return error_of("{\"type\": \"x\", \"" + field + "\": " + value + "}\n", small);
  };
  for (std::string field : {"data_length", "payload_length"}) {
    SCOPED_TRACE(field);
    EXPECT_NE(with(field, "-1").find(field + " is negative (-1)"), std::string::npos);
    EXPECT_NE(with(field, "2.5").find(field + " is not an integer (number)"), std::string::npos);
    EXPECT_NE(with(field, "5.0").find("not an integer"), std::string::npos);
    EXPECT_NE(with(field, "\"10\"").find("not an integer (string)"), std::string::npos);
    EXPECT_NE(with(field, "true").find("not an integer (boolean)"), std::string::npos);
    EXPECT_NE(with(field, "[1]").find("not an integer (array)"), std::string::npos);
    EXPECT_NE(with(field, "18446744073709551615").find("more than the limit"), std::string::npos);
    EXPECT_NE(with(field, "1e300").find("not an integer"), std::string::npos);
    EXPECT_NE(with(field, "99999999999999999999999").find("not an integer"), std::string::npos);
  }
  EXPECT_NE(with("data_length", "51").find("data_length 51 is more than the limit of 50 bytes"),
            std::string::npos);
  EXPECT_EQ(with("data_length", "50"), "");  // at the limit: waits for 50 bytes
  EXPECT_NE(with("payload_length", "61").find("payload_length 61 is more than the limit of 60"),
            std::string::npos);
  EXPECT_EQ(with("payload_length", "60"), "");
}

TEST(WyomingProtocol, BadDataSectionsAreNamed) {
  auto with_section = [](const std::string& section) {
    return error_of("{\"type\": \"synthesize\", \"data_length\": " +
                    std::to_string(section.size()) + "}\n" + section);
  };
  EXPECT_NE(with_section("{\"text\": ").find("data section of \"synthesize\" is not JSON"),
            std::string::npos);
  EXPECT_NE(with_section("[1, 2]").find("data section of \"synthesize\" is not a JSON object"),
            std::string::npos);
  EXPECT_NE(with_section("null").find("not a JSON object (null)"), std::string::npos);
  EXPECT_NE(with_section("\"text\"").find("not a JSON object (string)"), std::string::npos);
}

TEST(WyomingProtocol, AnErrorIsFinal) {
  EventParser parser;
  std::vector<Event> events;
  std::string bytes = "{\"type\": \"ok\"}\n{oops}\n{\"type\": \"never\"}\n";
  EXPECT_FALSE(parser.feed(bytes.data(), bytes.size(), events));
  ASSERT_EQ(events.size(), 1u);  // what came before the error is still delivered
  EXPECT_EQ(events[0].type, "ok");
  EXPECT_TRUE(parser.failed());
  std::string error = parser.error();
  EXPECT_FALSE(parser.feed("{\"type\": \"x\"}\n", 14, events));
  EXPECT_EQ(events.size(), 1u);
  EXPECT_EQ(parser.error(), error);
}

TEST(WyomingProtocol, WritesInvalidUtf8AsReplacementCharacters) {
  Event e = error_event("bad \xff byte", "internal");
  EventParser parser;
  auto events = parse_all(to_bytes(e), parser);
  ASSERT_EQ(events.size(), 1u) << parser.error();
  EXPECT_EQ(events[0].data["text"], "bad \xef\xbf\xbd byte");
  EXPECT_EQ(events[0].data["code"], "internal");
}

TEST(WyomingProtocol, DeeplyNestedJsonIsHandledWithoutRecursion) {
  std::string deep = "{\"type\": \"x\", \"data\": {\"a\": " + std::string(30000, '[') +
                     std::string(30000, ']') + "}}\n";
  EventParser parser({100000, 100, 100});
  auto events = parse_all(deep, parser);
  EXPECT_EQ(events.size(), 1u) << parser.error();
}

// Mutations of valid frames: flipped, dropped, inserted and duplicated bytes, truncations, and
// numbers swapped into the lengths, fed in random pieces. Nothing may crash or throw; every outcome
// is events or an error with a message. Seeded, so that a failure reproduces.
TEST(WyomingProtocol, MutationFuzzNeverCrashesOrThrows) {
  std::vector<std::string> seeds = {
      "{\"type\": \"describe\"}\n",
      to_bytes(audio_chunk()),
      "{\"type\": \"synthesize\", \"data\": {\"text\": \"Hi.\"}, \"data_length\": 17}\n"
      "{\"voice\": {\"name\": \"x\"}}",
      "{\"type\":\"synthesize-start\"}\n{\"type\":\"synthesize-chunk\",\"data\":{\"text\":\"a\"}}\n"
      "{\"type\":\"synthesize-stop\"}\n",
  };
  const std::vector<std::string> numbers = {"-1",  "0",   "1",    "7",     "4096", "99999999999",
                                            "1e9", "0.5", "null", "\"3\"", "[]",   "{}"};
  std::mt19937 rng(20240611);
  const FrameLimits limits{256, 256, 1024};
  int events_seen = 0, errors_seen = 0;
  for (int iteration = 0; iteration < 5000; ++iteration) {
    std::string bytes = seeds[rng() % seeds.size()];
    if (rng() % 4 == 0) bytes += seeds[rng() % seeds.size()];
    int mutations = 1 + static_cast<int>(rng() % 4);
    for (int m = 0; m < mutations && !bytes.empty(); ++m) {
      std::size_t at = rng() % bytes.size();
      switch (rng() % 6) {
        case 0:
          bytes[at] = static_cast<char>(bytes[at] ^ (1 << (rng() % 8)));
          break;
        case 1:
          bytes.erase(at, 1 + rng() % 3);
          break;
        case 2:
          bytes.insert(at, 1, static_cast<char>(rng() % 256));
          break;
        case 3:
          bytes.resize(at);
          break;
        case 4:
          bytes.insert(at, bytes.substr(at, rng() % 16));
          break;
        default: {  // a length field's value replaced
          auto field = bytes.find("_length\": ");
          if (field == std::string::npos) field = bytes.find("_length\":");
          if (field != std::string::npos) {
            auto value = bytes.find_first_of("0123456789", field);
            auto end = bytes.find_first_not_of("0123456789", value);
            if (value != std::string::npos && end != std::string::npos)
              bytes.replace(value, end - value, numbers[rng() % numbers.size()]);
          }
        }
      }
    }
    EventParser parser(limits);
    std::vector<Event> events;
    std::size_t at = 0;
    bool ok = true;
    try {
      while (at < bytes.size()) {
        std::size_t piece = std::min<std::size_t>(1 + rng() % 40, bytes.size() - at);
        ok = parser.feed(bytes.data() + at, piece, events);
        at += piece;
      }
    } catch (const std::exception& e) {
      FAIL() << "iteration " << iteration << ": feed threw " << e.what();
    }
    ASSERT_EQ(ok, !parser.failed());
    if (!ok) {
      ++errors_seen;
      ASSERT_FALSE(parser.error().empty());
    }
    for (const Event& e : events) {
      ++events_seen;
      ASSERT_FALSE(e.type.empty());
      ASSERT_TRUE(e.data.is_object());
      ASSERT_NO_THROW(to_bytes(e));
    }
  }
  // The mutations reach both outcomes.
  EXPECT_GT(events_seen, 1000);
  EXPECT_GT(errors_seen, 1000);
}

}  // namespace
