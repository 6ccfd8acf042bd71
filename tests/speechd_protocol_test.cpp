// sd_tts's Speech Dispatcher module protocol (tools/sd_tts/protocol.h) and its settings and text
// mappings (speech_text.h), without a synthesiser: replies, blocks, escaping, the 705 AUDIO
// framing, and that no input makes the parser throw.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "protocol.h"
#include "speech_text.h"

namespace tts::speechd {
namespace {

// Feeds lines; returns every reply and the last request.
struct Fed {
  std::vector<std::string> replies;
  std::vector<Request> requests;
};
Fed feed_all(Parser& parser, const std::vector<std::string>& lines) {
  Fed fed;
  for (const std::string& line : lines) {
    Step step = parser.feed(line);
    for (auto& r : step.replies) fed.replies.push_back(r);
    if (step.request) fed.requests.push_back(*step.request);
  }
  return fed;
}

TEST(SpeechdProtocol, SpeakCollectsDataLinesUpToALoneDot) {
  Parser parser;
  Fed fed = feed_all(parser, {"SPEAK", "<speak>Hello", "<mark name=\"w1\"/>world.</speak>", "."});
  ASSERT_EQ(fed.replies, (std::vector<std::string>{"202 OK RECEIVING MESSAGE"}));
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].kind, Request::Kind::kSpeak);
  EXPECT_EQ(fed.requests[0].text, "<speak>Hello\n<mark name=\"w1\"/>world.</speak>");
  EXPECT_FALSE(parser.in_block());
}

TEST(SpeechdProtocol, DataLinesStartingWithADotArriveDoubled) {
  Parser parser;
  // The server's escape_dot turns a line ".x" into "..x" and a line "." into "..".
  Fed fed = feed_all(parser, {"SPEAK", "..hidden", "..", "end", "."});
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].text, ".hidden\n.\nend");
}

TEST(SpeechdProtocol, CommandsInsideDataAreData) {
  Parser parser;
  Fed fed = feed_all(parser, {"SPEAK", "STOP", "QUIT", "."});
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].text, "STOP\nQUIT");
}

TEST(SpeechdProtocol, EmptyMessageCannotBeSpoken) {
  Parser parser;
  Fed fed = feed_all(parser, {"SPEAK", "."});
  EXPECT_EQ(fed.replies,
            (std::vector<std::string>{"202 OK RECEIVING MESSAGE", "301 ERROR CANT SPEAK"}));
  EXPECT_TRUE(fed.requests.empty());
  fed = feed_all(parser, {"SPEAK", "", "."});
  EXPECT_EQ(fed.replies.back(), "301 ERROR CANT SPEAK");
}

TEST(SpeechdProtocol, CharAndKeyAreOneLine) {
  Parser parser;
  Fed fed = feed_all(parser, {"CHAR", "space", "."});
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].kind, Request::Kind::kChar);
  EXPECT_EQ(fed.requests[0].text, " ");
  fed = feed_all(parser, {"KEY", "shift_a", "b", "."});
  EXPECT_TRUE(fed.requests.empty());
  EXPECT_EQ(fed.replies.back(), "305 DATA MORE THAN ONE LINE");
  fed = feed_all(parser, {"KEY", "control_alt_delete", "."});
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].kind, Request::Kind::kKey);
  fed = feed_all(parser, {"SOUND_ICON", "message", "."});
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].kind, Request::Kind::kSoundIcon);
}

TEST(SpeechdProtocol, SetBlockGivesSettingsInOrder) {
  Parser parser;
  Fed fed = feed_all(parser, {"SET", "rate=20", "pitch=-10", "language=en", "synthesis_voice=NULL",
                              "punctuation_mode=some", "."});
  EXPECT_EQ(fed.replies, (std::vector<std::string>{"203 OK RECEIVING SETTINGS"}));
  ASSERT_EQ(fed.requests.size(), 1u);
  const auto& s = fed.requests[0].settings;
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0], (std::pair<std::string, std::string>{"rate", "20"}));
  EXPECT_EQ(s[1].second, "-10");
  EXPECT_EQ(s[3].second, "NULL");
  // A value with "=" in it keeps everything after the first one.
  fed = feed_all(parser, {"SET", "synthesis_voice=a=b", "."});
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].settings[0].second, "a=b");
}

TEST(SpeechdProtocol, BadSettingLinesGiveBadSyntaxAtTheEnd) {
  Parser parser;
  for (const char* bad : {"rate", "rate=", "=5"}) {
    Fed fed = feed_all(parser, {"SET", "pitch=1", bad, "volume=2", "."});
    EXPECT_EQ(fed.replies,
              (std::vector<std::string>{"203 OK RECEIVING SETTINGS", "302 ERROR BAD SYNTAX"}))
        << bad;
    EXPECT_TRUE(fed.requests.empty()) << bad;
  }
}

TEST(SpeechdProtocol, AudioAndLogLevelBlocks) {
  Parser parser;
  Fed fed = feed_all(parser, {"AUDIO", "audio_output_method=server", "."});
  EXPECT_EQ(fed.replies, (std::vector<std::string>{"207 OK RECEIVING AUDIO SETTINGS"}));
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].kind, Request::Kind::kAudio);
  fed = feed_all(parser, {"LOGLEVEL", "log_level=3", "."});
  EXPECT_EQ(fed.replies, (std::vector<std::string>{"207 OK RECEIVING LOGLEVEL SETTINGS"}));
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_EQ(fed.requests[0].kind, Request::Kind::kLogLevel);
}

TEST(SpeechdProtocol, SimpleCommandsAndUnknownOnes) {
  Parser parser;
  Fed fed = feed_all(parser, {"STOP", "PAUSE", "LIST VOICES", "QUIT", "INIT"});
  ASSERT_EQ(fed.requests.size(), 5u);
  EXPECT_EQ(fed.requests[0].kind, Request::Kind::kStop);
  EXPECT_EQ(fed.requests[1].kind, Request::Kind::kPause);
  EXPECT_EQ(fed.requests[2].kind, Request::Kind::kListVoices);
  EXPECT_EQ(fed.requests[3].kind, Request::Kind::kQuit);
  EXPECT_TRUE(fed.replies.empty());
  for (const char* unknown : {"HELLO", "speak", "SPEAK ", "", "STOP now", "LIST  VOICES"}) {
    fed = feed_all(parser, {unknown});
    EXPECT_EQ(fed.replies, (std::vector<std::string>{"300 ERR UNKNOWN COMMAND"})) << unknown;
    EXPECT_TRUE(fed.requests.empty());
  }
}

TEST(SpeechdProtocol, Debug) {
  Parser parser;
  Fed fed = feed_all(parser, {"DEBUG ON /tmp/x.log ", "DEBUG OFF ", "DEBUG", "DEBUG MAYBE"});
  ASSERT_EQ(fed.requests.size(), 2u);
  EXPECT_TRUE(fed.requests[0].debug_on);
  EXPECT_EQ(fed.requests[0].debug_file, "/tmp/x.log");
  EXPECT_FALSE(fed.requests[1].debug_on);
  EXPECT_EQ(fed.replies,
            (std::vector<std::string>{"302 ERROR BAD SYNTAX", "302 ERROR BAD SYNTAX"}));
}

TEST(SpeechdProtocol, MalformedInputNeverThrows) {
  std::mt19937 rng(7);
  const std::vector<std::string> pieces = {
      "SPEAK", "SET",  "AUDIO",    ".",        "..",
      "=",     "a=b",  "\r",       "\xff\xfe", std::string(1, '\0'),
      "CHAR",  "STOP", "DEBUG ON", "<speak>",  "LOGLEVEL"};
  Parser parser;
  for (int i = 0; i < 20000; ++i) {
    std::string line;
    int parts = static_cast<int>(rng() % 4);
    for (int k = 0; k < parts; ++k) line += pieces[rng() % pieces.size()];
    if (rng() % 5 == 0) line.push_back(static_cast<char>(rng()));
    EXPECT_NO_THROW(parser.feed(line));
  }
}

TEST(SpeechdProtocol, Replies) {
  EXPECT_EQ(format_init_reply(true, "voice x\nloaded"),
            "299-voice x loaded\n299 OK LOADED SUCCESSFULLY\n");
  EXPECT_EQ(format_init_reply(false, "no voice"), "399-no voice\n399 ERR CANT INIT MODULE\n");
  EXPECT_EQ(format_voice_list({{"default", "en-us", ""}, {"b\tc", "", "x"}}),
            "200-default\ten-us\tnone\n200-b c\tnone\tx\n200 OK VOICE LIST SENT\n");
  EXPECT_EQ(format_voice_list({}), "304 CANT LIST VOICES\n");
  EXPECT_EQ(format_index_mark("w3"), "700-w3\n700 INDEX MARK\n");
  EXPECT_EQ(format_icon("message"), "706-message\n706 ICON\n");
}

TEST(SpeechdProtocol, AudioIsFramedAndEscapedAsTheServerReadsIt) {
  // 0x0a0a has two newline bytes, 0x7d7d two escape bytes, 0x2e2e dots: none may end a line.
  std::vector<std::int16_t> samples = {0x0a0a, 0x7d7d, 0x2e2e, -1, 0, 0x0a7d, 12345};
  std::string message = format_audio(samples.data(), samples.size(), 16000);
  std::string header =
      "705-bits=16\n705-num_channels=1\n705-sample_rate=16000\n705-num_samples=7\n"
      "705-big_endian=0\n705-AUDIO";
  ASSERT_EQ(message.compare(0, header.size(), header), 0);
  EXPECT_EQ(message[header.size()], '\0');
  ASSERT_GE(message.size(), 11u);
  EXPECT_EQ(message.substr(message.size() - 11), "\n705 AUDIO\n");
  // Only two newlines after the header's: the one ending the data and the last.
  std::string data = message.substr(header.size() + 1, message.size() - header.size() - 1 - 11);
  EXPECT_EQ(data.find('\n'), std::string::npos);
  auto bytes = unescape_audio(message);
  ASSERT_TRUE(bytes.has_value());
  ASSERT_EQ(bytes->size(), samples.size() * 2);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    auto value = static_cast<std::int16_t>((*bytes)[2 * i] | ((*bytes)[2 * i + 1] << 8));
    EXPECT_EQ(value, samples[i]) << i;
  }
  EXPECT_EQ(data.substr(0, 4), "\x7d\x2a\x7d\x2a");  // 0x0a → 0x7d 0x2a
}

TEST(SpeechdSettings, RatePitchVolume) {
  EXPECT_FLOAT_EQ(rate_factor(0), 1.0f);
  EXPECT_FLOAT_EQ(rate_factor(50), 2.0f);
  EXPECT_FLOAT_EQ(rate_factor(-50), 0.5f);
  EXPECT_FLOAT_EQ(rate_factor(100), 4.0f);
  EXPECT_FLOAT_EQ(rate_factor(-100), 0.25f);
  EXPECT_FLOAT_EQ(rate_factor(1000), 4.0f);
  EXPECT_FLOAT_EQ(pitch_semitones(0), 0.0f);
  EXPECT_FLOAT_EQ(pitch_semitones(100), 12.0f);
  EXPECT_FLOAT_EQ(pitch_semitones(-50), -6.0f);
  EXPECT_FLOAT_EQ(volume_gain(100), 1.0f);
  EXPECT_FLOAT_EQ(volume_gain(0), 0.5f);
  EXPECT_FLOAT_EQ(volume_gain(-100), 0.0f);
  EXPECT_EQ(parse_int("-100", -100, 100), -100);
  EXPECT_FALSE(parse_int("101", -100, 100));
  EXPECT_FALSE(parse_int("1x", -100, 100));
  EXPECT_FALSE(parse_int("", -100, 100));
}

TEST(SpeechdText, CharAndKey) {
  EXPECT_EQ(char_ssml(","), "<speak>comma</speak>");
  EXPECT_EQ(char_ssml(" "), "<speak>space</speak>");
  EXPECT_EQ(char_ssml("a"), "<speak><say-as interpret-as=\"characters\">a</say-as></speak>");
  EXPECT_EQ(char_ssml("<"), "<speak>less than</speak>");
  EXPECT_EQ(key_ssml("shift_a"),
            "<speak>shift <say-as interpret-as=\"characters\">a</say-as></speak>");
  EXPECT_EQ(key_ssml("control_alt_delete"), "<speak>control alt delete</speak>");
  EXPECT_EQ(key_ssml("kp-enter"), "<speak>keypad enter</speak>");
  EXPECT_EQ(key_ssml("f5"), "<speak>F 5</speak>");
  EXPECT_EQ(key_ssml("double-quote"), "<speak>double quote</speak>");
  EXPECT_EQ(key_ssml("_"), "<speak>space</speak>");
}

TEST(SpeechdText, PunctuationModes) {
  const std::string ssml = "<speak><mark name=\"a.b\"/>Cost: $5 &amp; (more)!</speak>";
  EXPECT_EQ(speak_punctuation(ssml, Punctuation::kNone), ssml);
  EXPECT_EQ(speak_punctuation(ssml, Punctuation::kSome),
            "<speak><mark name=\"a.b\"/>Cost:  dollar 5  and  (more)!</speak>");
  EXPECT_EQ(
      speak_punctuation(ssml, Punctuation::kMost),
      "<speak><mark name=\"a.b\"/>Cost:  dollar 5  and   left paren more right paren !</speak>");
  EXPECT_EQ(speak_punctuation(ssml, Punctuation::kAll),
            "<speak><mark name=\"a.b\"/>Cost colon:  dollar 5  and   left paren more right paren  "
            "exclamation!</speak>");
  EXPECT_EQ(parse_punctuation("SOME"), Punctuation::kSome);
  EXPECT_FALSE(parse_punctuation("lots"));
}

TEST(SpeechdText, SpellingMode) {
  EXPECT_EQ(spell_ssml("<speak>Hi <mark name=\"a b\"/>you</speak>"),
            "<speak><say-as interpret-as=\"characters\">Hi </say-as><mark name=\"a b\"/>"
            "<say-as interpret-as=\"characters\">you</say-as></speak>");
  // Text already in say-as, phoneme or sub is theirs; blank runs stay as they are.
  EXPECT_EQ(
      spell_ssml(
          "<speak> <sub alias=\"x\">y</sub>\n<say-as interpret-as=\"date\">1</say-as></speak>"),
      "<speak> <sub alias=\"x\">y</sub>\n<say-as interpret-as=\"date\">1</say-as></speak>");
  EXPECT_EQ(spell_ssml("<speak>a<b"), "<speak><say-as interpret-as=\"characters\">a</say-as><b");
}

TEST(SpeechdText, ConfigAndVoiceChoice) {
  auto config = parse_config("# comment\nTtsVoice \"my voice\"\n  TtsThreads 2 # two\nBad\n");
  EXPECT_EQ(config["ttsvoice"], "my voice");
  EXPECT_EQ(config["ttsthreads"], "2");
  EXPECT_EQ(config.count("bad"), 0u);
  std::vector<InstalledVoice> voices = {{"default", {"en-US"}},
                                        {"brit", {"en-GB"}},
                                        {"hans", {"de"}},
                                        {"allison", {"en-US", "es-MX"}}};
  EXPECT_EQ(choose_voice(voices, "BRIT", "de", "default"), "brit");
  EXPECT_EQ(choose_voice(voices, "NULL", "de", "default"), "hans");
  EXPECT_EQ(choose_voice(voices, "", "en", "default"), "default");
  EXPECT_EQ(choose_voice(voices, "", "en-GB", "default"), "brit");
  EXPECT_EQ(choose_voice(voices, "nobody", "fr", "default"), "default");
  EXPECT_EQ(choose_voice(voices, "NULL", "NULL", "default"), "default");
  // A bilingual voice is found for its second language (tag or primary subtag), as every chooser
  // of the engine finds it (engine::voice_for_language); its first still keeps the fallback.
  EXPECT_EQ(choose_voice(voices, "NULL", "es-MX", "default"), "allison");
  EXPECT_EQ(choose_voice(voices, "NULL", "es", "default"), "allison");
  EXPECT_EQ(choose_voice(voices, "NULL", "en-US", "default"), "default");
  EXPECT_EQ(choose_voice(voices, "NULL", "en", "allison"), "allison");
}

}  // namespace
}  // namespace tts::speechd

// What is spoken of a message the engine cannot read as SSML: the text between the tags.
TEST(SpeechdText, TheTextOfMarkupThatIsNotSsml) {
  using tts::speechd::text_of_markup;
  EXPECT_EQ(text_of_markup("<speak>unclosed <emphasis>tag</speak>"), " unclosed  tag ");
  EXPECT_EQ(text_of_markup("Plain words, &amp; no markup."), "Plain words, & no markup.");
  EXPECT_EQ(text_of_markup("a < b &lt; c &#233;&#x4E2D; &nbsp; &#0;"), "a < b < c é中 &nbsp; &#0;");
  EXPECT_EQ(text_of_markup("<?xml version='1.0'?><!-- a > b --><speak>Hi<mark name=\"m\"/>."),
            "   Hi .");
  EXPECT_EQ(text_of_markup("<speak>Caf\xff ok.</speak"), " Caf\xEF\xBF\xBD ok. ");
}
