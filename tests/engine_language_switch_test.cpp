// A voice that speaks two languages switches inside one text. The voice is a random one whose
// voice.json speaks en-US and es-MX and names es-419 as the espeak-ng voice of es-MX, as the
// bilingual Allison will be packed. SSML xml:lang (on <speak>, <p>, <s>, <voice>) and <lang>, and
// SynthesisOptions::language, choose the language of a span: its phoneme ids must be those of the
// span alone through a one-language pipeline of that espeak-ng voice (so normalisation, sentence
// splitting and espeak-ng all followed it), and differ from the other language's.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "random_voice_suite.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice.h"
#include "tts/frontend/ssml.h"
#include "tts/frontend/ssml_pipeline.h"
#include "tts/frontend/text_pipeline.h"

namespace fs = std::filesystem;
using namespace tts;

namespace {

class LanguageSwitch : public testing_support::RandomVoiceSuite<LanguageSwitch> {
 public:
  static engine::RandomVoiceOptions voice_options() {
    engine::RandomVoiceOptions options;
    options.name = "allison";
    options.languages = {"en-US", "es-MX"};
    options.espeak_voices = {{"es-MX", "es-419"}};
    return options;
  }
};

struct Said {
  std::string normalized, phonemes;
  std::vector<int> ids;
};

// The sentences of SSML through `voice`'s own text pipeline, as the engine walks it.
std::vector<Said> ssml_sentences(const engine::Voice& voice, const std::string& markup,
                                 std::vector<std::string>* warnings = nullptr,
                                 std::size_t base = 0) {
  const auto document = frontend::parse_ssml(markup, voice.text().languages(), base);
  if (warnings) *warnings = document.warnings;
  std::vector<Said> out;
  frontend::SsmlHandlers handlers;
  handlers.sentence = [&](frontend::PhonemizedSentence s, const frontend::Prosody&) {
    out.push_back({s.normalized, s.phonemes, s.ids});
  };
  handlers.pause = [](int) {};
  frontend::process_ssml(document, voice.text(), handlers);
  return out;
}

// `text` alone, one sentence, through a pipeline that speaks only the espeak-ng voice `espeak`.
Said alone(const std::string& espeak, const std::string& text) {
  const frontend::TextPipeline pipeline(espeak);
  std::vector<Said> out;
  pipeline.process(text, [&](frontend::PhonemizedSentence s) {
    out.push_back({s.normalized, s.phonemes, s.ids});
  });
  EXPECT_EQ(out.size(), 1u) << text;
  return out.empty() ? Said{} : out.front();
}

void expect_said(const Said& said, const std::string& espeak, const std::string& text) {
  const Said expected = alone(espeak, text);
  EXPECT_EQ(said.ids, expected.ids)
      << text << " in " << espeak << ": got " << said.phonemes << ", alone " << expected.phonemes;
}

TEST_F(LanguageSwitch, ALangSpanIsPhonemisedWithItsOwnEspeakVoiceAndRules) {
  const auto said =
      ssml_sentences(*voice(),
                     "<speak>I have <lang xml:lang=\"es-MX\">veintiún amigos y 21 casas</lang> "
                     "today.</speak>");
  ASSERT_EQ(said.size(), 3u);
  expect_said(said[0], "en-us", "I have");
  expect_said(said[1], "es-419", "veintiún amigos y 21 casas");
  expect_said(said[2], "en-us", "today.");
  // The number in the Spanish span is spelled by the Spanish rules, not left to espeak-ng or read
  // in English; and the span read as English would have been another thing.
  EXPECT_NE(said[1].normalized.find("veintiuna casas"), std::string::npos) << said[1].normalized;
  EXPECT_NE(said[1].ids, alone("en-us", "veintiún amigos y 21 casas").ids);
}

TEST_F(LanguageSwitch, XmlLangOnSPVoiceAndSpeakSwitchTheirContent) {
  const auto said = ssml_sentences(*voice(),
                                   "<speak><s xml:lang=\"es-MX\">Son 3,50 €.</s><s>It is 3 pm.</s>"
                                   "<p xml:lang=\"es\">El Sr. García llegó el 15/03/2024.</p>"
                                   "<voice xml:lang=\"es-MX\">Adiós, 2 amigos.</voice></speak>");
  ASSERT_EQ(said.size(), 4u);
  expect_said(said[0], "es-419", "Son 3,50 €.");
  EXPECT_NE(said[0].normalized.find("tres euros con cincuenta céntimos"), std::string::npos)
      << said[0].normalized;
  expect_said(said[1], "en-us", "It is 3 pm.");
  // "es" names es-MX by its primary subtag; the splitter keeps "Sr." inside the sentence.
  expect_said(said[2], "es-419", "El Sr. García llegó el 15/03/2024.");
  expect_said(said[3], "es-419", "Adiós, 2 amigos.");

  // On <speak>: the whole document, and a <lang> inside it switches back.
  const auto spanish =
      ssml_sentences(*voice(),
                     "<speak xml:lang=\"es-MX\">Tengo 21 años. <lang xml:lang=\"en-US\">Hello "
                     "there.</lang></speak>");
  ASSERT_EQ(spanish.size(), 2u);
  expect_said(spanish[0], "es-419", "Tengo 21 años.");
  expect_said(spanish[1], "en-us", "Hello there.");
}

TEST_F(LanguageSwitch, ALanguageTheVoiceDoesNotSpeakWarnsAndIsReadInItsDefault) {
  std::vector<std::string> warnings;
  const auto said = ssml_sentences(
      *voice(), "<speak><lang xml:lang=\"de-DE\">Guten Tag, 21 Freunde.</lang></speak>", &warnings);
  ASSERT_EQ(said.size(), 1u);
  expect_said(said[0], "en-us", "Guten Tag, 21 Freunde.");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("xml:lang=\"de-DE\": the voice does not speak it (it speaks en-US, "
                             "es-MX); read in en-US"),
            std::string::npos)
      << warnings[0];
}

TEST_F(LanguageSwitch, LangNeedsXmlLangAndVoiceChoosesNoOtherVoice) {
  EXPECT_THROW(ssml_sentences(*voice(), "<speak><lang>hola</lang></speak>"), frontend::SsmlError);
  std::vector<std::string> warnings;
  const auto said = ssml_sentences(
      *voice(), "<speak><voice name=\"en-GB-x\" xml:lang=\"es\">Hola.</voice></speak>", &warnings);
  ASSERT_EQ(said.size(), 1u);
  expect_said(said[0], "es-419", "Hola.");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("<voice name=\"en-GB-x\"> is not supported"), std::string::npos)
      << warnings[0];
}

// Through the engine: SynthesisOptions::language is the text's language (plain text and SSML's
// base), matched as xml:lang is; one the voice does not speak is refused before anything starts.
TEST_F(LanguageSwitch, TheSynthesisLanguageReadsTheTextAndSsmlSwitchesFromIt) {
  auto sentences = [&](const std::string& text, const std::string& language, bool ssml) {
    engine::SynthesisStream stream(voice());
    engine::SynthesisOptions options;
    options.language = language;
    options.ssml = ssml;
    options.rate = 8.0f;
    stream.start(text, options);
    std::vector<std::string> phonemes;
    engine::AudioChunk chunk;
    while (stream.next(chunk))
      if (chunk.sentence && chunk.sentence->index >= 0 &&
          (phonemes.size() <= static_cast<std::size_t>(chunk.sentence->index)))
        phonemes.push_back(chunk.sentence->phonemes);
    return phonemes;
  };
  EXPECT_EQ(sentences("Tengo 21 años.", "es", false),
            std::vector<std::string>{alone("es-419", "Tengo 21 años.").phonemes});
  EXPECT_EQ(sentences("Tengo 21 años.", "", false),
            std::vector<std::string>{alone("en-us", "Tengo 21 años.").phonemes});
  EXPECT_EQ(
      sentences("<speak>Tengo 21 años. <lang xml:lang=\"en\">Hello.</lang></speak>", "es-MX", true),
      (std::vector<std::string>{alone("es-419", "Tengo 21 años.").phonemes,
                                alone("en-us", "Hello.").phonemes}));
  engine::SynthesisStream stream(voice());
  engine::SynthesisOptions options;
  options.language = "fr-CA";
  try {
    stream.start("Bonjour.", options);
    ADD_FAILURE() << "a language the voice does not speak was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "language \"fr-CA\": voice \"allison\" speaks en-US,es-MX");
  }
}

// A voice.json without "espeak_voices" keeps the older meaning: every language it speaks is
// phonemised with "language", so a span in its second language is read with the first's voice.
TEST_F(LanguageSwitch, WithoutEspeakVoicesEveryLanguageUsesTheVoicesLanguage) {
  engine::RandomVoiceOptions options = voice_options();
  options.espeak_voices.clear();
  const fs::path plain = folder() / "plain";
  engine::create_random_voice(plain, options);
  const auto voice = engine::Voice::load(plain);
  const auto said =
      ssml_sentences(*voice, "<speak><lang xml:lang=\"es-MX\">Tengo 21 años.</lang></speak>");
  ASSERT_EQ(said.size(), 1u);
  // Spanish rules (the tag's), English espeak-ng voice.
  EXPECT_NE(said[0].normalized.find("veintiún años"), std::string::npos) << said[0].normalized;
  EXPECT_EQ(said[0].phonemes, frontend::Phonemizer("en-us").phonemize(said[0].normalized));
}

}  // namespace
