#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "sanitizer_build.h"
#include "tts/frontend/ssml.h"
#include "tts/frontend/ssml_pipeline.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/frontend/utf8.h"

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

// Found by fuzz/ssml_fuzz (seeds fuzz/corpus/ssml/huge_*): numbers past a double's range threw
// std::out_of_range out of parse_ssml, and nested prosody multiplied to infinity or to a rate
// so small that a sentence would ask for unbounded audio.
// Found by fuzz/ssml_fuzz (seed fuzz/corpus/ssml/say_as_characters_multibyte): say-as characters
// spelled byte by byte, splitting a character of more than one byte into halves that are not UTF-8.
TEST(Ssml, SayAsCharactersSpellsWholeCharacters) {
  for (const char* kind : {"characters", "spell-out"}) {
    auto doc = parse_ssml(std::string("<speak><say-as interpret-as=\"") + kind +
                          "\">é ۑx€😀</say-as></speak>");
    ASSERT_EQ(doc.segments.size(), 1u);
    EXPECT_FALSE(find_invalid_utf8(doc.segments[0].text)) << doc.segments[0].text;
    EXPECT_THAT(doc.segments[0].text, HasSubstr("é ۑ x € 😀 "));
  }
  auto french = parse_ssml("<speak><say-as interpret-as=\"digits\">1²3</say-as></speak>", "fr");
  EXPECT_FALSE(find_invalid_utf8(french.segments[0].text));
  EXPECT_THAT(french.segments[0].text, HasSubstr("1 ² 3 "));
}

TEST(Ssml, ProsodyAndBreakNumbersStayInRange) {
  const std::string huge(400, '9');
  auto breaks = parse_ssml("<speak><break time=\"" + huge + "ms\"/></speak>");
  ASSERT_EQ(breaks.segments.size(), 1u);
  EXPECT_EQ(breaks.segments[0].break_ms, 60000);  // at most a minute, as for any long time

  auto too_large = parse_ssml("<speak><prosody rate=\"" + huge + "\">x</prosody></speak>");
  ASSERT_EQ(too_large.warnings.size(), 1u);
  EXPECT_THAT(too_large.warnings[0], HasSubstr("not understood"));
  EXPECT_EQ(too_large.segments[0].prosody, Prosody{});

  const std::string big(300, '9');
  auto nested = parse_ssml("<speak><prosody rate=\"" + big + "\" pitch=\"+90st\"><prosody rate=\"" +
                           big + "\" volume=\"+200dB\">x</prosody></prosody></speak>");
  ASSERT_EQ(nested.segments.size(), 1u);
  EXPECT_EQ(nested.segments[0].prosody.rate, kMaxProsodyRate);
  EXPECT_EQ(nested.segments[0].prosody.pitch, kMaxProsodyPitch);
  EXPECT_EQ(nested.segments[0].prosody.volume, kMaxProsodyVolume);
  EXPECT_THAT(nested.warnings[0], HasSubstr("kept at the limit"));

  auto slow = parse_ssml("<speak><prosody rate=\"0." + std::string(300, '0') +
                         "1\" pitch=\"-90st\" volume=\"silent\">x</prosody></speak>");
  EXPECT_EQ(slow.segments[0].prosody.rate, kMinProsodyRate);
  EXPECT_EQ(slow.segments[0].prosody.pitch, kMinProsodyPitch);
  EXPECT_EQ(slow.segments[0].prosody.volume, 0.0);
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
  EXPECT_EQ(text("<say-as interpret-as=\"telephone\">+1 (555) 123-4567</say-as>"),
            " plus one, five five five, one two three, four five six seven ");
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
      "<speak>\n  <emphasis level=\"strong\">really</emphasis> <audio>x</audio></speak>");
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

// ---- <mark> ----

TEST(SsmlMarks, TheParserKeepsThemInOrderWhereTheyAre) {
  auto doc = parse_ssml(
      "<speak><mark name=\"a\"/>Hello <mark name=\"b\"/><mark name=\"c\"/>world."
      "<prosody rate=\"slow\"><mark name=\"d\"/>slow</prosody><break/><mark name=\"a\"/></speak>");
  std::vector<std::pair<Kind, std::string>> got;
  for (const auto& s : doc.segments) got.emplace_back(s.kind, s.text);
  const std::vector<std::pair<Kind, std::string>> want = {
      {Kind::kMark, "a"},      {Kind::kText, "Hello "}, {Kind::kMark, "b"},    {Kind::kMark, "c"},
      {Kind::kText, "world."}, {Kind::kMark, "d"},      {Kind::kText, "slow"}, {Kind::kBreak, ""},
      {Kind::kMark, "a"}};  // names need not be unique
  EXPECT_EQ(got, want);
  EXPECT_DOUBLE_EQ(doc.segments[5].prosody.rate, 0.75);
  EXPECT_TRUE(doc.warnings.empty());
}

TEST(SsmlMarks, BadMarksAreErrorsNamingThem) {
  EXPECT_THAT(error_of("<speak>a <mark/> b</speak>"), HasSubstr("<mark> needs a non-empty name"));
  EXPECT_THAT(error_of("<speak>a <mark name=\"\"/> b</speak>"), HasSubstr("non-empty name"));
  EXPECT_THAT(
      error_of("<speak><mark name=\"" + std::string(kMaxMarkNameBytes + 1, 'x') + "\"/></speak>"),
      HasSubstr("1025 bytes (at most 1024)"));
  EXPECT_EQ(error_of("<speak><mark name=\"" + std::string(kMaxMarkNameBytes, 'x') + "\"/></speak>"),
            "no error");
  EXPECT_THAT(error_of("<speak><mark name=\"a&#9;b\"/></speak>"), HasSubstr("control character"));
  auto content = parse_ssml("<speak><mark name=\"m\">said</mark></speak>");
  ASSERT_EQ(content.warnings.size(), 1u);
  EXPECT_THAT(content.warnings[0], HasSubstr("<mark> should be empty"));
  ASSERT_EQ(content.segments.size(), 2u);
  EXPECT_EQ(content.segments[1].text, "said");
}

namespace {
// What process_ssml hands over, as one line per event: "S text" a sentence, "  name@N" a mark of
// it before its word N (counted in its phonemes) or "@end", "P ms" a pause, "M name" a loose mark.
std::vector<std::string> walk(const std::string& markup,
                              std::vector<PhonemizedSentence>* sentences = nullptr) {
  static const TextPipeline pipeline("en-us");
  std::vector<std::string> events;
  SsmlHandlers h;
  h.sentence = [&](PhonemizedSentence s, const Prosody&) {
    events.push_back("S " + s.text);
    for (const auto& m : s.marks) {
      if (m.symbol == s.ids.size()) {
        events.push_back("  " + m.name + "@end");
        continue;
      }
      // The symbol before a mark is BOS or a word boundary: the mark is at a word's start.
      EXPECT_GE(m.symbol, 1u);
      EXPECT_LT(m.symbol, s.ids.size() - 1) << m.name;
      const int before = s.ids[m.symbol - 1];
      EXPECT_TRUE(before == pipeline.symbols().bos_id() ||
                  before == pipeline.symbols().word_boundary_id())
          << m.name << " in " << s.text;
      const auto word = std::count(s.ids.begin(), s.ids.begin() + static_cast<long>(m.symbol),
                                   pipeline.symbols().word_boundary_id());
      events.push_back("  " + m.name + "@" + std::to_string(word));
    }
    if (sentences) sentences->push_back(s);
  };
  h.pause = [&](int ms) { events.push_back("P " + std::to_string(ms)); };
  h.mark = [&](const std::string& name) { events.push_back("M " + name); };
  process_ssml(parse_ssml(markup), pipeline, h);
  return events;
}

std::string without_marks(std::string markup) {
  for (std::size_t at; (at = markup.find("<mark ")) != std::string::npos;)
    markup.erase(at, markup.find("/>", at) + 2 - at);
  return markup;
}

// The sentences (text and phonemes) are those of the same document without its marks.
void expect_marks_change_nothing_said(const std::string& markup) {
  std::vector<PhonemizedSentence> with, without;
  walk(markup, &with);
  walk(without_marks(markup), &without);
  ASSERT_EQ(with.size(), without.size()) << markup;
  for (std::size_t i = 0; i < with.size(); ++i) {
    EXPECT_EQ(with[i].text, without[i].text);
    EXPECT_EQ(with[i].phonemes, without[i].phonemes);
    EXPECT_EQ(with[i].ids, without[i].ids);
  }
}
}  // namespace

TEST(SsmlMarks, StartMiddleEndAndSeveralAtOneSpot) {
  const std::string doc =
      "<speak><mark name=\"a\"/>Hello <mark name=\"b\"/><mark name=\"c\"/>big "
      "<mark name=\"d\"/>world.<mark name=\"e\"/><mark name=\"f\"/></speak>";
  EXPECT_EQ(walk(doc), (std::vector<std::string>{"S Hello big world.", "  a@0", "  b@1", "  c@1",
                                                 "  d@2", "  e@end", "  f@end"}));
  expect_marks_change_nothing_said(doc);
}

TEST(SsmlMarks, AcrossSentencesAndInsideProsodySAndP) {
  const std::string doc =
      "<speak>One two. <mark name=\"a\"/>Three four. <mark name=\"b\"/></speak>";
  EXPECT_EQ(walk(doc), (std::vector<std::string>{"S One two.", "S Three four.", "  a@0", "M b"}));
  expect_marks_change_nothing_said(doc);
  const std::string nested =
      "<speak><p><s><mark name=\"a\"/>One</s><s>two <mark name=\"b\"/><prosody rate=\"slow\">"
      "<mark name=\"c\"/>three <mark name=\"d\"/>four</prosody> <mark name=\"e\"/>five"
      "<mark name=\"f\"/></s></p><p><mark name=\"g\"/>six</p></speak>";
  EXPECT_EQ(walk(nested),
            (std::vector<std::string>{"S One", "  a@0", "S two", "S three four", "  b@0", "  c@0",
                                      "  d@1", "S five", "  e@0", "  f@end", "S six", "  g@0"}));
  expect_marks_change_nothing_said(nested);
}

TEST(SsmlMarks, NextToBreaksAndAlone) {
  const std::string doc =
      "<speak><mark name=\"a\"/><break time=\"100ms\"/><mark name=\"b\"/>Hi."
      "<mark name=\"c\"/><break time=\"200ms\"/> <mark name=\"d\"/> <break time=\"300ms\"/>"
      "<mark name=\"e\"/><mark name=\"f\"/></speak>";
  EXPECT_EQ(walk(doc), (std::vector<std::string>{"M a", "P 100", "S Hi.", "  b@0", "  c@end",
                                                 "P 200", "M d", "P 300", "M e", "M f"}));
  EXPECT_EQ(walk("<speak><mark name=\"only\"/></speak>"), (std::vector<std::string>{"M only"}));
  EXPECT_EQ(walk("<speak>Hello <mark name=\"x\"/>!!</speak>"),
            (std::vector<std::string>{"S Hello !!", "  x@end"}));
}

TEST(SsmlMarks, InsideAWordBeforeItAndAroundPhonemeElements) {
  EXPECT_EQ(walk("<speak>hel<mark name=\"x\"/>lo world</speak>"),
            (std::vector<std::string>{"S hello world", "  x@0"}));
  expect_marks_change_nothing_said("<speak>hel<mark name=\"x\"/>lo world</speak>");
  EXPECT_EQ(walk("<speak><mark name=\"p\"/><phoneme ph=\"həlˈoʊ\">hello</phoneme>"
                 "<mark name=\"q\"/></speak>"),
            (std::vector<std::string>{"S həlˈoʊ", "  p@0", "M q"}));
  // The object replacement character the marks travel as is a space in the document's text.
  EXPECT_EQ(walk("<speak>a\xEF\xBF\xBC"
                 "b <mark name=\"m\"/>c</speak>"),
            (std::vector<std::string>{"S a b c", "  m@2"}));
}

TEST(SsmlMarks, MarksInsideReplacedContentComeBeforeItsWords) {
  // say-as, sub and phoneme replace their content; marks in it are kept, before the words.
  EXPECT_EQ(walk("<speak>Call <say-as interpret-as=\"characters\"><mark name=\"a\"/>AB"
                 "<mark name=\"b\"/>C</say-as> <sub alias=\"doctor\"><mark name=\"c\"/>Dr"
                 "</sub> <phoneme ph=\"nˈoʊ\"><mark name=\"d\"/>no</phoneme></speak>"),
            (std::vector<std::string>{"S Call A B C doctor", "  a@1", "  b@1", "  c@4", "S nˈoʊ",
                                      "  d@0"}));
}

TEST(SsmlMarks, AMarkBeforeEveryWordLeavesTheSpeechAsItWas) {
  // espeak-ng fuses "that the" into one word and reads "a" alone as the letter: the phonemes are
  // still those of the sentence without marks, and a mark between fused words falls before both.
  const std::string words[] = {"I", "know", "that", "the", "user", "is",   "reading",
                               "a", "long", "line", "of",  "the",  "text", "aloud."};
  std::string doc = "<speak>";
  for (std::size_t i = 0; i < std::size(words); ++i)
    doc += "<mark name=\"" + std::to_string(i) + "\"/>" + words[i] + " ";
  doc += "</speak>";
  expect_marks_change_nothing_said(doc);
  std::vector<PhonemizedSentence> sentences;
  const auto events = walk(doc, &sentences);
  ASSERT_EQ(sentences.size(), 1u);
  ASSERT_EQ(events.size(), 1 + std::size(words));
  const auto phoneme_words =
      std::count(sentences[0].phonemes.begin(), sentences[0].phonemes.end(), ' ') + 1;
  int previous = -1;
  for (std::size_t i = 0; i < std::size(words); ++i) {
    const std::string& e = events[1 + i];
    ASSERT_EQ(e.substr(0, e.find('@')), "  " + std::to_string(i));
    const int word = std::stoi(e.substr(e.find('@') + 1));
    EXPECT_GE(word, previous) << e;  // in order, each before a word of the phonemes
    EXPECT_LT(word, phoneme_words) << e;
    EXPECT_LE(word, static_cast<int>(i)) << e;
    previous = word;
  }
  EXPECT_EQ(events[1], "  0@0");
  EXPECT_EQ(events.back(), "  13@" + std::to_string(phoneme_words - 1));  // "aloud."
}

TEST(SsmlMarks, MarksDoNotMoveWhereALongSentenceIsCut) {
  std::string plain, marked;
  for (int i = 0; i < 120; ++i) {  // no sentence end: cut near 400 bytes, at a space
    const std::string word = i % 3 == 0 ? "reading" : i % 3 == 1 ? "the" : "line";
    plain += word + " ";
    marked += "<mark name=\"" + std::to_string(i) + "\"/>" + word + " ";
  }
  std::vector<PhonemizedSentence> with, without;
  const auto events = walk("<speak>" + marked + "</speak>", &with);
  walk("<speak>" + plain + "</speak>", &without);
  ASSERT_GT(without.size(), 1u);
  expect_marks_change_nothing_said("<speak>" + marked + "</speak>");
  int marks = 0;
  for (const auto& e : events) marks += e.rfind("  ", 0) == 0;
  EXPECT_EQ(marks, 120);
}

TEST(SsmlMarks, TextTheNormaliserRewritesKeepsItsMarksBeforeTheirWords) {
  // "$5" is "five dollars": the mark after it is before the third word of "I paid five dollars".
  const std::string doc = "<speak>I paid <mark name=\"m\"/>$5 <mark name=\"n\"/>today.</speak>";
  EXPECT_EQ(walk(doc), (std::vector<std::string>{"S I paid $5 today.", "  m@2", "  n@4"}));
  expect_marks_change_nothing_said(doc);
  // "Dr." before a name is "doctor" (a title, so no sentence end either); the mark stays at Smith.
  EXPECT_EQ(walk("<speak>Ask Dr. <mark name=\"m\"/>Smith.</speak>"),
            (std::vector<std::string>{"S Ask Dr. Smith.", "  m@2"}));
  // Sentence ends are decided past a mark as without it: a lower-case word goes on.
  EXPECT_EQ(walk("<speak>It is 5 p.m. <mark name=\"m\"/>now, and No. <mark name=\"n\"/>5.</speak>"),
            (std::vector<std::string>{"S It is 5 p.m. now, and No. 5.", "  m@5", "  n@8"}));
}

// ---- size ----

// Parsing and walking are linear in marks and attributes: 100,000 of each take well under a
// second (a quadratic walk took over a minute), so a few seconds is loose enough for sanitizers.
TEST(SsmlSize, ManyMarksAndAttributesTakeLinearTime) {
  std::string marks = "<speak>";
  for (int i = 0; i < 100000; ++i) marks += "<mark name=\"m" + std::to_string(i) + "\"/>";
  marks += "</speak>";
  std::string attributes = "<speak><s";
  for (int i = 0; i < 100000; ++i) attributes += " a" + std::to_string(i) + "=\"v\"";
  attributes += ">Hi.</s></speak>";
  const auto start = std::chrono::steady_clock::now();
  const SsmlDocument with_marks = parse_ssml(marks);
  const SsmlDocument with_attributes = parse_ssml(attributes);
  const std::vector<std::string> events = walk(marks);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(with_marks.segments.size(), 100000u);
  EXPECT_EQ(with_marks.segments.back().text, "m99999");
  EXPECT_EQ(with_attributes.segments.front().text, "Hi.");
  ASSERT_EQ(events.size(), 100000u);  // every mark, in order, with nothing to say around them
  EXPECT_EQ(events.front(), "M m0");
  EXPECT_EQ(events.back(), "M m99999");
  // Sanitizers slow it several times over; the quadratic walk took over 50 s without them.
  EXPECT_LT(seconds, TTS_SANITIZER_BUILD ? 20.0 : 5.0);
  // A repeated attribute is still found among many.
  EXPECT_THAT(error_of(attributes.substr(0, attributes.size() - 16) + " a5=\"w\">Hi.</s></speak>"),
              HasSubstr("attribute a5 repeated"));
}
