// `tts say --lang TAG` as a user runs it, with three random voices on the voice path: allison
// (en-US and pt-BR, pt-BR phonemised by espeak-ng's pt-br, packed as a bilingual voice is),
// babble (en-US) and gb (en-GB). Without --voice the language chooses the voice (the tag, then its
// primary subtag) and reads the text; with --voice that voice must speak it; a language no voice
// speaks is an error listing what they speak. Voices differ by their seeds, so equal audio means
// the same voice read the same phonemes. The bilingual voice's second language is one no bundled
// voice speaks (the search path ends with those, and a voice whose own language it is would win).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "random_voice_suite.h"
#include "tts/engine/voice_random.h"

namespace fs = std::filesystem;

namespace {

struct Result {
  int exit_code = -1;
  std::string err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class SayLanguage : public tts::testing_support::RandomVoiceSuite<SayLanguage> {
 public:
  static fs::path voice_subfolder() { return fs::path("voices") / "allison"; }
  static tts::engine::RandomVoiceOptions voice_options() {
    tts::engine::RandomVoiceOptions options;
    options.name = "allison";
    options.seed = 8;
    options.languages = {"en-US", "pt-BR"};
    options.espeak_voices = {{"pt-BR", "pt-br"}};
    return options;
  }

 protected:
  static void SetUpTestSuite() {
    RandomVoiceSuite::SetUpTestSuite();
    tts::engine::RandomVoiceOptions babble;
    babble.name = "babble";
    tts::engine::create_random_voice(folder() / "voices" / "babble", babble);
    tts::engine::RandomVoiceOptions gb;
    gb.name = "gb";
    gb.seed = 3;
    gb.language = "en-gb";
    tts::engine::create_random_voice(folder() / "voices" / "gb", gb);
  }
  // Runs `tts say ARGS` with the test's voice path; the audio, if any, goes to folder()/NAME.
  static Result say(const std::string& args) {
    const fs::path err = folder() / "stderr";
    const std::string command =
        "cd " + folder().string() + " && TTS_VOICE_PATH=" + (folder() / "voices").string() +
        " XDG_DATA_HOME=" + (folder() / "data").string() + " " + TTS_BINARY_DIR +
        "/tools/tts say --rate 6 --seed 2 " + args + " >/dev/null 2>" + err.string();
    Result r;
    const int status = std::system(command.c_str());
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = slurp(err);
    return r;
  }
  static std::string audio(const std::string& name) { return slurp(folder() / name); }
};

constexpr const char* kPortuguese = "\"Tenho 21 anos.\"";

TEST_F(SayLanguage, ALanguageChoosesTheVoiceThatSpeaksItAndReadsTheTextInIt) {
  ASSERT_EQ(say(std::string("--lang pt-BR -o by-tag.wav ") + kPortuguese).exit_code, 0);
  ASSERT_EQ(say(std::string("--lang pt -o by-primary.wav ") + kPortuguese).exit_code, 0);
  ASSERT_EQ(say(std::string("--voice allison --lang pt-BR -o named.wav ") + kPortuguese).exit_code,
            0);
  ASSERT_EQ(say(std::string("--voice allison -o english.wav ") + kPortuguese).exit_code, 0);
  EXPECT_GT(audio("by-tag.wav").size(), 1000u);
  EXPECT_EQ(audio("by-tag.wav"), audio("named.wav"));
  EXPECT_EQ(audio("by-primary.wav"), audio("named.wav"));
  EXPECT_NE(audio("english.wav"), audio("named.wav"));  // her English reading of the same text

  ASSERT_EQ(say("--lang en_GB -o gb.wav Hello.").exit_code, 0);
  ASSERT_EQ(say("--voice gb -o gb-named.wav Hello.").exit_code, 0);
  EXPECT_EQ(audio("gb.wav"), audio("gb-named.wav"));
}

TEST_F(SayLanguage, ALanguageNoVoiceSpeaksIsAnErrorListingTheirLanguages) {
  // German: no voice here speaks it, nor any bundled one (the search path ends with those, after
  // the test's, whose languages the message lists first).
  const Result r = say("--lang de-DE -o de.wav Guten Tag.");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("tts say: --lang de-DE: no installed voice speaks it (the voices speak "
                       "en-US, pt-BR, en-GB"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(folder() / "de.wav"));
}

// An empty tag is no way to ask for the voice's own language (leaving --lang out is): refused
// with the message of the C API and the Python package, before a voice is looked for.
TEST_F(SayLanguage, AnEmptyLanguageTagIsRefused) {
  for (const std::string voice : {"", "--voice babble "}) {
    const Result r = say(voice + "--lang '' -o empty.wav Hello.");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("tts say: --lang: language tag \"\" is empty: leave it out for the "
                         "voice's first language"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(folder() / "empty.wav"));
  }
}

TEST_F(SayLanguage, ANamedVoiceMustSpeakTheLanguage) {
  const Result r = say(std::string("--voice babble --lang pt-BR -o no.wav ") + kPortuguese);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--lang pt-BR: voice \"babble\" does not speak it (it speaks en-US)"),
            std::string::npos)
      << r.err;
}

TEST_F(SayLanguage, SsmlInALanguageTheVoiceDoesNotSpeakWarnsAndSpeaks) {
  const Result r = say(
      "--voice allison --ssml -o de.wav '<speak><lang xml:lang=\"de-DE\">Hallo.</lang></speak>'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("xml:lang=\"de-DE\": the voice does not speak it (it speaks en-US, pt-BR); "
                       "read in en-US"),
            std::string::npos)
      << r.err;
  EXPECT_GT(audio("de.wav").size(), 100u);
}

}  // namespace
