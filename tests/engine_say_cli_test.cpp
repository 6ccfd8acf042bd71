// `tts say` as a user runs it: no voice, files, raw PCM, stdin lines, the speakers (through ALSA's
// file plugin) and the documented exit codes.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tts/audio/audio_file.h"
#include "tts/engine/voice_random.h"
#include "tts/engine/voice_search.h"

namespace fs = std::filesystem;

namespace {

struct Result {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::int16_t> s16(const std::string& bytes) {
  std::vector<std::int16_t> s(bytes.size() / 2);
  for (std::size_t i = 0; i < s.size(); ++i)
    s[i] = static_cast<std::int16_t>(static_cast<unsigned char>(bytes[2 * i]) |
                                     static_cast<unsigned char>(bytes[2 * i + 1]) << 8);
  return s;
}

class SayCli : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "tts-say-test-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
    fs::create_directories(root_ / "voices" / "empty");
    tts::engine::create_random_voice(root_ / "voices" / "babble", {});
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  // Runs `tts ARGS` through the shell with the test's voice path and data folder.
  static Result tts(const std::string& args, const std::string& env = "") {
    const fs::path out = root_ / "stdout", err = root_ / "stderr";
    const std::string command =
        "cd " + root_.string() +
        " && unset ALSA_CONFIG_PATH; TTS_VOICE_PATH=" + (root_ / "voices").string() +
        " XDG_DATA_HOME=" + (root_ / "data").string() + " " + env + " " + TTS_BINARY_DIR +
        "/tools/tts " + args +
        (args.rfind("say", 0) == 0 && args.find("--help") == std::string::npos ? " --rate 6" : "") +
        " >" + out.string() + " 2>" + err.string();
    Result r;
    const int status = std::system(command.c_str());
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
  static fs::path root_;
};
fs::path SayCli::root_;

TEST_F(SayCli, WithoutAVoiceSaysNoVoiceIsInstalledYet) {
  if (tts::engine::find_voice("default")) GTEST_SKIP() << "a default voice is installed";
  const Result r = tts("say \"Hello, world.\"");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no voice installed yet"), std::string::npos) << r.err;
}

TEST_F(SayCli, WritesAFileThatMatchesTheRawStream) {
  Result r = tts("say --voice babble --seed 5 -o out.wav \"Hello there. Second sentence.\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto audio = tts::audio::read_audio(root_ / "out.wav");
  EXPECT_EQ(audio.sample_rate, 16000);
  ASSERT_GT(audio.samples.size(), 1000u);
  r = tts("say --voice babble --seed 5 --raw \"Hello there. Second sentence.\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto raw = s16(r.out);
  ASSERT_EQ(raw.size(), audio.samples.size());
  for (std::size_t i = 0; i < raw.size(); ++i)
    ASSERT_NEAR(raw[i] / 32768.0, audio.samples[i], 2.0 / 32768) << i;
  // Other formats by extension.
  EXPECT_EQ(tts("say --voice babble -o out.flac Hi.").exit_code, 0);
  EXPECT_EQ(tts::audio::read_audio(root_ / "out.flac").samples.size() > 0, true);
}

TEST_F(SayCli, StdinIsSpokenLineByLine) {
  const auto one = s16(tts("say --voice babble --raw One.").out);
  const auto two = s16(tts("say --voice babble --raw Two.").out);
  ASSERT_FALSE(one.empty());
  std::ofstream(root_ / "lines.txt") << "One.\n\nTwo.\n";
  const Result lines = tts("say --voice babble --raw --sentence-silence 0.25 < lines.txt");
  ASSERT_EQ(lines.exit_code, 0) << lines.err;
  EXPECT_EQ(s16(lines.out).size(), one.size() + 4000 + two.size());
  // -f FILE reads the whole file as one text.
  const Result file = tts("say --voice babble --raw -f lines.txt");
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_GT(s16(file.out).size(), one.size());
}

TEST_F(SayCli, DocumentedExitCodes) {
  Result r = tts("say --voice babble --raw -o x.wav Hi.");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = tts("say --voice " + (root_ / "voices" / "empty").string() + " -o x.wav Hi.");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("voice.json"), std::string::npos) << r.err;
  r = tts("say --voice nobody -o x.wav Hi.");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no voice named \"nobody\""), std::string::npos) << r.err;
  r = tts("say --voice babble --ssml -o x.wav \"<speak><s>unclosed\"");
  EXPECT_EQ(r.exit_code, 3);
  r = tts("say --voice babble --device cuda -o x.wav Hi.");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
  r = tts("say --voice babble --rate 0 -o x.wav Hi.");
  EXPECT_EQ(r.exit_code, 2);
  r = tts("say --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("4 no audio output device"), std::string::npos) << r.out;
}

// ALSA reads $XDG_CONFIG_HOME/alsa/asoundrc; the speakers are a file or a missing card.
TEST_F(SayCli, SpeakersThroughAlsaFilePluginAndNoDevice) {
  const fs::path config = root_ / "config";
  fs::create_directories(config / "alsa");
  const std::string env = "XDG_CONFIG_HOME=" + config.string() + " ASAN_OPTIONS=detect_leaks=0";
  std::ofstream(config / "alsa" / "asoundrc") << "pcm.!default { type hw card 63 }\n"
                                                 "ctl.!default { type hw card 63 }\n";
  Result r = tts("say --voice babble Hi.", env);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("-o file.wav"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;

  const fs::path tap = root_ / "played.raw";
  std::ofstream(config / "alsa" / "asoundrc")
      << "pcm.!default {\n  type plug\n  slave { pcm \"tts_tap\" format S16_LE channels 1 rate "
         "16000 }\n}\npcm.tts_tap {\n  type file\n  slave.pcm \"null\"\n  file \""
      << tap.string() << "\"\n  format \"raw\"\n}\n";
  r = tts("say --voice babble --seed 9 \"Spoken aloud.\"", env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Result raw = tts("say --voice babble --seed 9 --raw \"Spoken aloud.\"");
  std::vector<std::int16_t> played, expected;
  for (auto s : s16(slurp(tap)))
    if (s != 0) played.push_back(s);
  for (auto s : s16(raw.out))
    if (s != 0) expected.push_back(s);
  ASSERT_EQ(played.size(), expected.size());
  for (std::size_t i = 0; i < played.size(); ++i) ASSERT_NEAR(played[i], expected[i], 2) << i;
}

}  // namespace
