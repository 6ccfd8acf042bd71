// SpeechService::voice(name, language), the rule by which a request that names no voice but gives
// a language is served (Wyoming's voice: {language}): an exact match first, then the primary
// subtag, then the default, with tags written as Home Assistant and piper write them. Four tiny
// random voices stand in for a real en-GB, en-US and French voice and a bilingual one that speaks
// en-US and es-MX (es-MX phonemised by espeak-ng's es-419), found for either language, whose
// request's language then reads the text.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../serve/wyoming/wyoming_request.h"
#include "tts/engine/voice_language.h"
#include "tts/engine/voice_random.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/serve/speech_service.h"

namespace fs = std::filesystem;
using namespace tts;
using namespace tts::serve;

namespace {

class ServeVoiceChoice : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "tts-voice-choice-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
    std::vector<ServedVoice> voices;
    // The en-GB voice first: it is the default, and an earlier match by primary subtag.
    for (const auto& [name, language] :
         {std::pair<std::string, std::string>{"gb", "en-gb"}, {"us", "en-us"}, {"fr", "fr-fr"}}) {
      engine::RandomVoiceOptions options;
      options.name = name;
      options.language = language;
      engine::create_random_voice(root_ / name, options);
      voices.push_back({name, engine::Voice::load(root_ / name)});
    }
    engine::RandomVoiceOptions bilingual;
    bilingual.name = "allison";
    bilingual.languages = {"en-US", "es-MX"};
    bilingual.espeak_voices = {{"es-MX", "es-419"}};
    engine::create_random_voice(root_ / "allison", bilingual);
    voices.push_back({"allison", engine::Voice::load(root_ / "allison")});
    service_ = std::make_unique<SpeechService>(std::move(voices), ServiceOptions{});
  }
  static void TearDownTestSuite() {
    service_.reset();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  static std::string chosen(const std::string& name, const std::string& language) {
    return service_->voice(name, language).name;
  }
  static fs::path root_;
  static std::unique_ptr<SpeechService> service_;
};
fs::path ServeVoiceChoice::root_;
std::unique_ptr<SpeechService> ServeVoiceChoice::service_;

TEST_F(ServeVoiceChoice, ALanguageChoosesItsFirstVoiceExactMatchFirst) {
  EXPECT_EQ(chosen("", "en_US"), "us");  // exact, though "gb" comes first by primary subtag
  EXPECT_EQ(chosen("", "en-US"), "us");
  EXPECT_EQ(chosen("", "EN-gb"), "gb");
  EXPECT_EQ(chosen("", "fr_FR"), "fr");
}

TEST_F(ServeVoiceChoice, ThenItsPrimarySubtagThenTheDefault) {
  EXPECT_EQ(chosen("", "en"), "gb");
  EXPECT_EQ(chosen("", "en-AU"), "gb");
  EXPECT_EQ(chosen("", "fr-CA"), "fr");
  EXPECT_EQ(chosen("", "de-DE"), "gb");  // no German voice: the default
  EXPECT_EQ(chosen("", ""), "gb");
}

TEST_F(ServeVoiceChoice, ANameWinsOverALanguage) {
  EXPECT_EQ(chosen("fr", "en-US"), "fr");
  EXPECT_EQ(chosen("us", ""), "us");
  EXPECT_EQ(chosen("alloy", "fr"), "gb");  // OpenAI's voice names mean the default
  try {
    chosen("nobody", "en-US");
    FAIL() << "an unknown voice was served";
  } catch (const RequestError& e) {
    EXPECT_STREQ(e.what(), "voice \"nobody\" is not served here (voices: gb, us, fr, allison)");
  }
}

// The rule itself: a voice whose default language is asked for wins over an earlier one that
// speaks it second, the preferred voice wins a tie, and the primary subtag comes last.
TEST(VoiceForLanguage, ItsOwnLanguageBeforeAnotherVoicesSecondThenThePrimarySubtag) {
  const std::vector<std::vector<std::string>> spoken = {
      {"en-US", "es-MX"}, {"en-US"}, {"es-MX", "en-US"}, {"fr-CA"}};
  EXPECT_EQ(engine::voice_for_language("en-US", spoken), 0u);
  EXPECT_EQ(engine::voice_for_language("en-US", spoken, 1), 1u);
  EXPECT_EQ(engine::voice_for_language("en-US", spoken, 2), 0u);  // en-US is its second language
  EXPECT_EQ(engine::voice_for_language("es_mx", spoken), 2u);
  EXPECT_EQ(engine::voice_for_language("es", spoken), 2u);
  EXPECT_EQ(engine::voice_for_language("es-ES", spoken, 0), 2u);
  EXPECT_EQ(engine::voice_for_language("fr", spoken), 3u);
  EXPECT_EQ(engine::voice_for_language("en-GB", spoken, 1), 1u);
  EXPECT_EQ(engine::voice_for_language("de-DE", spoken), std::nullopt);
  EXPECT_EQ(engine::voice_for_language("", spoken), std::nullopt);
  EXPECT_EQ(engine::voice_for_language("es-MX", {{"en-US", "es-MX"}}), 0u);
}

// The bilingual voice is found for its second language, by the tag or its primary subtag, while
// its first (en-US) still goes to the earlier voice that speaks it.
TEST_F(ServeVoiceChoice, ABilingualVoiceIsFoundForEitherLanguage) {
  EXPECT_EQ(chosen("", "es-MX"), "allison");
  EXPECT_EQ(chosen("", "es_mx"), "allison");
  EXPECT_EQ(chosen("", "es"), "allison");
  EXPECT_EQ(chosen("", "es-ES"), "allison");
  EXPECT_EQ(chosen("", "en-US"), "us");
}

// A Wyoming synthesize event with voice.language es-MX, read as the server reads it, chooses the
// bilingual voice and is spoken in Spanish: the sentence's phonemes are es-419's, numbers read by
// the Spanish rules; the same text in en-US on that voice reads in English.
TEST_F(ServeVoiceChoice, AWyomingRequestsLanguageReadsTheTextOnTheBilingualVoice) {
  auto spoken = [&](const std::string& language) {
    wyoming::Event event;
    event.type = "synthesize";
    event.data = {{"text", "Tengo 21 años."}, {"voice", {{"language", language}}}};
    SpeechRequest request = wyoming::speech_request(
        event, [](const std::string& name, const std::string& tag) { return chosen(name, tag); });
    EXPECT_EQ(request.language, language);
    auto job = service_->start(request, "wyoming");
    std::string phonemes;
    engine::AudioChunk chunk;
    while (job->next(chunk))
      if (chunk.sentence) phonemes = chunk.sentence->phonemes;
    return std::make_pair(request.voice, phonemes);
  };
  auto alone = [](const std::string& espeak) {
    return frontend::TextPipeline(espeak).process_sentence("Tengo 21 años.").phonemes;
  };
  EXPECT_EQ(spoken("es-MX"), std::make_pair(std::string("allison"), alone("es-419")));
  EXPECT_EQ(spoken("es"), std::make_pair(std::string("allison"), alone("es-419")));
  // A language no voice speaks: the default voice, in its own language (as piper does).
  EXPECT_EQ(spoken("de-DE"), std::make_pair(std::string("gb"), alone("en-gb")));
}

}  // namespace
