#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tts/frontend/ssml.h"

using namespace tts::frontend;
using ::testing::HasSubstr;
using Kind = SsmlSegment::Kind;

namespace {
std::string error_of(std::string_view markup) {
  try {
    parse_ssml(markup);
  } catch (const SsmlError& e) {
    return "L" + std::to_string(e.line()) + "C" + std::to_string(e.column()) + " " + e.what();
  }
  return "no error";
}
}  // namespace

TEST(Ssml, TextSentencesAndBreaks) {
  auto doc = parse_ssml(
      "<?xml version=\"1.0\"?>\n<speak><p><s>Hello &amp; welcome.</s><s>Bye</s></p>"
      "<break time=\"1.5s\"/><break strength=\"weak\"/><break/><!-- note --></speak>");
  ASSERT_EQ(doc.segments.size(), 7u);
  EXPECT_EQ(doc.segments[0].text, "Hello & welcome.");
  EXPECT_EQ(doc.segments[1].kind, Kind::kSentenceEnd);
  EXPECT_EQ(doc.segments[2].text, "Bye");
  EXPECT_EQ(doc.segments[4].kind, Kind::kBreak);
  EXPECT_EQ(doc.segments[4].break_ms, 1500);
  EXPECT_EQ(doc.segments[5].break_ms, 250);
  EXPECT_EQ(doc.segments[6].break_ms, 400);
  EXPECT_TRUE(doc.warnings.empty());
}

TEST(Ssml, ProsodyScopesMultiply) {
  auto doc = parse_ssml(
      "<speak><prosody rate=\"150%\" pitch=\"+10%\" volume=\"+6dB\">fast "
      "<prosody rate=\"slow\">slower</prosody></prosody> normal</speak>");
  ASSERT_EQ(doc.segments.size(), 3u);
  EXPECT_DOUBLE_EQ(doc.segments[0].prosody.rate, 1.5);
  EXPECT_DOUBLE_EQ(doc.segments[0].prosody.pitch, 1.1);
  EXPECT_NEAR(doc.segments[0].prosody.volume, 1.995, 1e-3);
  EXPECT_DOUBLE_EQ(doc.segments[1].prosody.rate, 1.125);
  EXPECT_EQ(doc.segments[2].prosody, Prosody{});
  auto odd = parse_ssml("<speak><prosody rate=\"warp\">x</prosody></speak>");
  ASSERT_EQ(odd.warnings.size(), 1u);
  EXPECT_THAT(odd.warnings[0], HasSubstr("rate=\"warp\""));
}

TEST(Ssml, SayAsSubAndPhoneme) {
  auto text = [](std::string_view inner) {
    auto doc = parse_ssml("<speak>" + std::string(inner) + "</speak>");
    std::string out;
    for (const auto& s : doc.segments) out += s.text;
    return out;
  };
  EXPECT_EQ(text("<say-as interpret-as=\"characters\">USA</say-as>"), " U S A  ");
  EXPECT_EQ(text("<say-as interpret-as=\"digits\">409</say-as>"), " four zero nine ");
  EXPECT_EQ(text("<say-as interpret-as=\"cardinal\">1,234</say-as>"),
            " one thousand two hundred thirty four ");
  EXPECT_EQ(text("<say-as interpret-as=\"ordinal\">3</say-as>"), " third ");
  EXPECT_EQ(text("<say-as interpret-as=\"date\" format=\"dmy\">4/5/1987</say-as>"),
            " May fourth nineteen eighty seven ");
  EXPECT_EQ(text("<say-as interpret-as=\"time\">3:05 pm</say-as>"), " three oh five p m ");
  EXPECT_EQ(text("<sub alias=\"World Wide Web\">WWW</sub>"), " World Wide Web ");
  auto doc = parse_ssml(
      "<speak>say <phoneme alphabet=\"ipa\" "
      "ph=\"t\xC9\x99m\xC9\x91\xCB\x90to\xCA\x8A\">tomato</phoneme></speak>");
  ASSERT_EQ(doc.segments.size(), 2u);
  EXPECT_EQ(doc.segments[1].kind, Kind::kPhonemes);
  EXPECT_EQ(doc.segments[1].text, "t\xC9\x99m\xC9\x91\xCB\x90to\xCA\x8A");
}

TEST(Ssml, UnknownElementsAreReportedAndSkipped) {
  auto doc = parse_ssml(
      "<speak>\n  <emphasis level=\"strong\">really</emphasis> <voice>x</voice></speak>");
  ASSERT_EQ(doc.warnings.size(), 2u);
  EXPECT_THAT(doc.warnings[0], HasSubstr("line 2, column 3: unknown element <emphasis>"));
  ASSERT_EQ(doc.segments.size(), 1u);
  EXPECT_EQ(doc.segments[0].text, "\n  really x");
}

TEST(Ssml, MalformedMarkupNamesLineAndColumn) {
  EXPECT_THAT(error_of("<speak>\n<s>Hi</p></speak>"), HasSubstr("L2C6"));
  EXPECT_THAT(error_of("<speak>\n<s>Hi</p></speak>"), HasSubstr("</p> does not match <s>"));
  EXPECT_THAT(error_of("<speak>Hi"),
              HasSubstr("L1C1 SSML line 1, column 1: element <speak> is never closed"));
  EXPECT_THAT(error_of("<speak>a &nbsp; b</speak>"), HasSubstr("L1C10"));
  EXPECT_THAT(error_of("<speak><break time=500ms/></speak>"), HasSubstr("quoted value"));
  EXPECT_THAT(error_of("<speak><break time=\"soon\"/></speak>"), HasSubstr("break time"));
  EXPECT_THAT(error_of("<speak a=\"1\" a=\"2\"></speak>"), HasSubstr("repeated"));
  EXPECT_THAT(error_of("<voice></voice>"), HasSubstr("root element must be <speak>"));
  EXPECT_THAT(error_of("<speak></speak>trailing"), HasSubstr("after the end"));
  EXPECT_THAT(error_of("plain text"), HasSubstr("expected the root element"));
  EXPECT_THAT(error_of("<speak><sub>x</sub></speak>"), HasSubstr("alias"));
  EXPECT_THAT(error_of(std::string(100, '<')), HasSubstr("expected a name"));
  std::string deep = "<speak>";
  for (int i = 0; i < 100; ++i) deep += "<s>";
  EXPECT_THAT(error_of(deep), HasSubstr("nested more than 64"));
}

TEST(Ssml, RecognisesSsml) {
  EXPECT_TRUE(looks_like_ssml("  <speak>hi</speak>"));
  EXPECT_TRUE(looks_like_ssml("<?xml version='1.0'?><speak/>"));
  EXPECT_FALSE(looks_like_ssml("Hello <b>"));
}
