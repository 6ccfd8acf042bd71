// `tts say` and `tts synth-mel` against what a user's input and a bad voice can do to the user:
// control characters in a document reach the terminal only escaped, an output path named twice
// is refused, Ctrl-C leaves no temporary file, and a voice whose acoustic model overflows is
// refused instead of speaking noise. The real command with random voices on the voice path.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "random_voice_suite.h"
#include "tts/acoustic/model_files.h"
#include "tts/acoustic/weights.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_random.h"
#include "tts/kernels/atomic_file.h"

extern char** environ;

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

// The files of `folder` whose names start with `prefix`.
std::vector<std::string> files_starting(const fs::path& folder, const std::string& prefix) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().filename().string().rfind(prefix, 0) == 0)
      found.push_back(entry.path().filename().string());
  return found;
}

class SayOutput : public tts::testing_support::RandomVoiceSuite<SayOutput> {
 public:
  static fs::path voice_subfolder() { return fs::path("voices") / "babble"; }
  static tts::engine::RandomVoiceOptions voice_options() {
    tts::engine::RandomVoiceOptions options;
    options.name = "babble";
    return options;
  }

 protected:
  // A voice whose weights are all 3e38: finite, but its frames overflow to infinity and NaN.
  static void SetUpTestSuite() {
    RandomVoiceSuite::SetUpTestSuite();
    const fs::path overflow = folder() / "voices" / "overflow";
    tts::engine::RandomVoiceOptions options;
    options.name = "overflow";
    tts::engine::create_random_voice(overflow, options);
    auto files = tts::acoustic::load_acoustic_files(overflow / "acoustic");
    auto& parameters = files.weights->parameters();
    std::fill(parameters.data(), parameters.data() + parameters.size(), 3e38f);
    tts::acoustic::save_acoustic_model(overflow / "acoustic", *files.weights, files.features,
                                       *files.symbols);
    tts::engine::VoiceManifest manifest;
    manifest.name = "overflow";
    manifest.licence = "CC0-1.0";
    manifest.source = "a random voice with every acoustic weight 3e38";
    tts::engine::write_voice_manifest(overflow, manifest, *files.symbols);
  }
  // Runs `tts ARGS` in folder() with the test's voice path; stderr is kept.
  static Result tts(const std::string& args) {
    const fs::path err = folder() / "stderr";
    const std::string command =
        "cd " + folder().string() + " && TTS_VOICE_PATH=" + (folder() / "voices").string() + " " +
        TTS_BINARY_DIR + "/tools/tts " + args + " >/dev/null 2>" + err.string();
    Result r;
    const int status = std::system(command.c_str());
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = slurp(err);
    return r;
  }
};

// A voice whose weights are finite but overflow (all 3e38) spoke full-scale noise, and synth-mel
// wrote NaN frames, both with exit 0. Both refuse it, naming the voice.
TEST_F(SayOutput, AVoiceWhoseFramesAreNotFiniteIsRefused) {
  Result r = tts("say --voice overflow -o noise.wav Hello there.");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("voice \"overflow\": its acoustic model gives frames that are not finite"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(folder() / "noise.wav"));
  r = tts("synth-mel --voice overflow -o noise.npy Hello there.");
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("voice \"overflow\": the acoustic model gives frames that are not finite"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(folder() / "noise.npy"));
  EXPECT_EQ(tts("say --voice babble --rate 6 -o fine.wav Hello there.").exit_code, 0);
}

}  // namespace
