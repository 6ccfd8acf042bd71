// Wyoming's request events read into speech requests (serve/wyoming/wyoming_request.h), with no
// server and no voice: what synthesize, synthesize-start and synthesize-chunk ask for, when the
// voice chooser is asked, and every malformed field refused with a message naming the event and
// the field.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../serve/wyoming/wyoming_request.h"

using nlohmann::json;
using namespace tts::serve;
using namespace tts::serve::wyoming;

namespace {

Event event(const std::string& type, json data = json::object()) {
  Event e;
  e.type = type;
  e.data = std::move(data);
  return e;
}

// Stands in for SpeechService::voice(name, language): serves "default", refuses "nobody", and
// answers a language alone with "by " and the language. Records what it was asked.
class WyomingRequest : public testing::Test {
 protected:
  SpeechRequest read(const Event& e) { return speech_request(e, chooser()); }

  VoiceChooser chooser() {
    return [this](const std::string& name, const std::string& language) {
      asked.emplace_back(name, language);
      if (name == "nobody")
        throw RequestError("voice \"nobody\" is not served here (voices: default)");
      return name.empty() ? "by " + language : name;
    };
  }

  // The message of the BadEvent that `e` is refused with ("" if it is not).
  std::string refusal(const Event& e) {
    try {
      read(e);
    } catch (const BadEvent& error) {
      return error.what();
    }
    ADD_FAILURE() << e.type << " " << e.data.dump() << " was not refused";
    return "";
  }

  std::vector<std::pair<std::string, std::string>> asked;
};

TEST_F(WyomingRequest, SynthesizeReadsTextVoiceAndFormat) {
  SpeechRequest r = read(event("synthesize", {{"text", "Hello there."},
                                              {"voice", {{"name", "default"}, {"speaker", "0"}}},
                                              {"text_format", "ssml"}}));
  EXPECT_EQ(r.text, "Hello there.");
  EXPECT_EQ(r.voice, "default");
  EXPECT_TRUE(r.ssml);
  EXPECT_EQ(r.rate, 1.0f);  // Wyoming has no rate, pitch or volume: the engine's own
  EXPECT_EQ(r.pitch_semitones, 0.0f);
  EXPECT_EQ(r.volume, 1.0f);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], std::make_pair(std::string("default"), std::string()));
}

TEST_F(WyomingRequest, AVoiceIsChosenByTheChooserWithItsNameAndLanguage) {
  SpeechRequest r =
      read(event("synthesize", {{"text", "Hi."}, {"voice", {{"language", "en_US"}}}}));
  EXPECT_EQ(r.voice, "by en_US");
  r = read(
      event("synthesize", {{"text", "Hi."}, {"voice", {{"name", "default"}, {"language", "fr"}}}}));
  EXPECT_EQ(r.voice, "default");
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0], std::make_pair(std::string(), std::string("en_US")));
  EXPECT_EQ(asked[1], std::make_pair(std::string("default"), std::string("fr")));
}

TEST_F(WyomingRequest, WithoutAVoiceTheDefaultIsLeftToTheService) {
  EXPECT_EQ(read(event("synthesize", {{"text", "Hi."}})).voice, "");
  EXPECT_EQ(read(event("synthesize", {{"text", "Hi."}, {"voice", nullptr}})).voice, "");
  EXPECT_TRUE(asked.empty());
  // An empty voice object is still asked about: the chooser gives the default for it.
  EXPECT_EQ(read(event("synthesize", {{"text", "Hi."}, {"voice", json::object()}})).voice, "by ");
}

TEST_F(WyomingRequest, FormatsOtherThanSsmlArePlainText) {
  for (json format : {json("text"), json("markdown"), json(""), json(nullptr)})
    EXPECT_FALSE(read(event("synthesize", {{"text", "Hi."}, {"text_format", format}})).ssml)
        << format.dump();
  EXPECT_FALSE(read(event("synthesize", {{"text", "Hi."}})).ssml);
  EXPECT_FALSE(read(event("synthesize", {{"text", "<speak/>"}, {"text_format", "SSML"}})).ssml);
}

TEST_F(WyomingRequest, StreamStartTakesTheVoiceAndFormatAndNoText) {
  // Its text, of whatever type, is not read: the stream's text comes in its chunks.
  SpeechRequest r =
      read(event("synthesize-start",
                 {{"text", 5}, {"voice", {{"name", "default"}}}, {"text_format", "ssml"}}));
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.voice, "default");
  EXPECT_TRUE(r.ssml);
  EXPECT_EQ(read(event("synthesize-start")).voice, "");
}

TEST_F(WyomingRequest, StreamChunkTakesItsTextOnly) {
  // A chunk's voice and format are its stream's: not read, whatever they hold.
  SpeechRequest r = read(
      event("synthesize-chunk", {{"text", "Hi there. Yes"}, {"voice", 5}, {"text_format", 7}}));
  EXPECT_EQ(r.text, "Hi there. Yes");
  EXPECT_EQ(r.voice, "");
  EXPECT_FALSE(r.ssml);
  EXPECT_TRUE(asked.empty());
  EXPECT_EQ(read(event("synthesize-chunk")).text, "");
  EXPECT_EQ(read(event("synthesize-chunk", {{"text", nullptr}})).text, "");
}

TEST_F(WyomingRequest, MalformedFieldsAreRefusedNamingTheEventAndTheField) {
  const std::vector<std::pair<Event, std::string>> cases = {
      {event("synthesize"), "synthesize: \"text\" is missing"},
      {event("synthesize", {{"text", nullptr}}), "synthesize: \"text\" is missing"},
      {event("synthesize", {{"text", 5}}), "synthesize: \"text\" is not a string (number)"},
      {event("synthesize", {{"text", json::array({"a"})}}),
       "synthesize: \"text\" is not a string (array)"},
      {event("synthesize", {{"text", "Hi."}, {"voice", "default"}}),
       "synthesize: \"voice\" is not an object (string)"},
      {event("synthesize", {{"text", "Hi."}, {"voice", {{"name", 1}}}}),
       "synthesize voice: \"name\" is not a string (number)"},
      {event("synthesize", {{"text", "Hi."}, {"voice", {{"language", json::array()}}}}),
       "synthesize voice: \"language\" is not a string (array)"},
      {event("synthesize", {{"text", "Hi."}, {"voice", {{"speaker", 0}}}}),
       "synthesize voice: \"speaker\" is not a string (number)"},
      {event("synthesize", {{"text", "Hi."}, {"text_format", true}}),
       "synthesize: \"text_format\" is not a string (boolean)"},
      {event("synthesize-start", {{"voice", 1}}),
       "synthesize-start: \"voice\" is not an object (number)"},
      {event("synthesize-start", {{"voice", {{"name", false}}}}),
       "synthesize-start voice: \"name\" is not a string (boolean)"},
      {event("synthesize-start", {{"text_format", {{"x", 1}}}}),
       "synthesize-start: \"text_format\" is not a string (object)"},
      {event("synthesize-chunk", {{"text", json::object()}}),
       "synthesize-chunk: \"text\" is not a string (object)"},
      // An empty language is a mistake, refused with the words of the command and the C API.
      {event("synthesize", {{"text", "Hi."}, {"voice", {{"language", ""}}}}),
       "synthesize: voice language: language tag \"\" is empty: leave it out for the voice's "
       "first language"},
  };
  for (const auto& [e, message] : cases) EXPECT_EQ(refusal(e), message) << e.data.dump();
  EXPECT_TRUE(asked.empty());  // a malformed voice object never reaches the chooser
}

TEST_F(WyomingRequest, AVoiceNotServedIsRefusedForItsEvent) {
  EXPECT_EQ(refusal(event("synthesize", {{"text", "Hi."}, {"voice", {{"name", "nobody"}}}})),
            "synthesize: voice \"nobody\" is not served here (voices: default)");
  EXPECT_EQ(refusal(event("synthesize-start", {{"voice", {{"name", "nobody"}}}})),
            "synthesize-start: voice \"nobody\" is not served here (voices: default)");
  // The voice is read before the text format and the text's type: the first fault is reported.
  EXPECT_EQ(refusal(event("synthesize", {{"text", 5}, {"voice", {{"name", "nobody"}}}})),
            "synthesize: voice \"nobody\" is not served here (voices: default)");
  EXPECT_EQ(refusal(event("synthesize", {{"text", 5}, {"text_format", 1}})),
            "synthesize: \"text_format\" is not a string (number)");
}

TEST_F(WyomingRequest, OtherEventsAreNotSynthesisRequests) {
  for (const char* type : {"describe", "synthesize-stop", "ping", ""})
    EXPECT_THROW(read(event(type)), std::invalid_argument) << type;
}

TEST_F(WyomingRequest, StringFieldsNameTheirEvent) {
  json data = {{"text", "hi"}, {"n", 1}};
  EXPECT_EQ(string_field(data, "text", "ping"), "hi");
  EXPECT_EQ(string_field(data, "absent", "ping", "fallback"), "fallback");
  try {
    string_field(data, "n", "ping");
    FAIL() << "a number was read as a string";
  } catch (const BadEvent& e) {
    EXPECT_STREQ(e.what(), "ping: \"n\" is not a string (number)");
  }
}

}  // namespace
