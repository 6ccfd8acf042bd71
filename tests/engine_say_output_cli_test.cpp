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

// A document whose text holds "ESC ] 0 ; title BEL" (retitles a terminal) and "ESC [2J" (clears
// it): the warning and the error quoting it show them escaped, never as the bytes themselves.
TEST_F(SayOutput, ControlCharactersOfTheInputReachTheTerminalEscaped) {
  std::ofstream(folder() / "escapes.ssml", std::ios::binary)
      << "<speak><say-as interpret-as=\"cardinal\">\x1B]0;owned\x07\x1B[2J</say-as> Hi.</speak>";
  Result r = tts("say --voice babble --rate 6 --ssml -f escapes.ssml -o escapes.wav");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("not a whole number"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\\x1B]0;owned\\x07\\x1B[2J"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find_first_of("\x1B\x07"), std::string::npos) << r.err;

  std::ofstream(folder() / "bad.ssml", std::ios::binary)
      << "<speak><break time=\"\x1B[2J\x1B]0;owned\x07\"/></speak>";
  r = tts("say --voice babble --ssml -f bad.ssml -o bad.wav");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("break time \"\\x1B[2J"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find_first_of("\x1B\x07"), std::string::npos) << r.err;

  r = tts("say --voice babble -f \"$(printf 'no\\033[2Jfile')\" -o none.wav");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("no\\x1B[2Jfile: cannot open"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x1B'), std::string::npos) << r.err;
}

// -o x.wav --timings x.wav wrote the timings over the audio and said nothing.
TEST_F(SayOutput, AnOutputPathNamedTwiceIsRefused) {
  std::ofstream(folder() / "kept.wav") << "not to be overwritten";
  for (const std::string& timings : std::vector<std::string>{
           "kept.wav", "./kept.wav", "../" + folder().filename().string() + "/kept.wav"}) {
    const Result r = tts("say --voice babble -o kept.wav --timings " + timings + " Hello.");
    EXPECT_EQ(r.exit_code, 2) << timings << ": " << r.err;
    EXPECT_NE(r.err.find("-o kept.wav and --timings " + timings + " are the same file"),
              std::string::npos)
        << r.err;
  }
  const Result r = tts("synth-mel --voice babble -o kept.wav --timings ./kept.wav Hello.");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("are the same file"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(folder() / "kept.wav"), "not to be overwritten");
  // Different files are fine.
  const Result fine = tts("say --voice babble --rate 6 -o two.wav --timings two.tsv Hello.");
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
}

// Ctrl-C (SIGINT) or a kill (SIGTERM) in the middle of a long text: the command ends by that
// signal, as an interrupted command does, and leaves neither the output nor its temporary.
TEST_F(SayOutput, AnInterruptedSayLeavesNoTemporaryFile) {
  std::ofstream text(folder() / "long.txt");
  for (int i = 0; i < 3000; ++i) text << "This is sentence number " << i << " of a long text. ";
  text.close();
  const std::string tts_binary = std::string(TTS_BINARY_DIR) + "/tools/tts";
  ASSERT_EQ(::setenv("TTS_VOICE_PATH", (folder() / "voices").c_str(), 1), 0);
  const fs::path previous = fs::current_path();
  fs::current_path(folder());
  for (int signal : {SIGINT, SIGTERM}) {
    const std::string output = signal == SIGINT ? "int.wav" : "term.wav";
    std::vector<std::string> args{tts_binary, "say", "--voice", "babble",    "-f",
                                  "long.txt", "-o",  output,    "--timings", output + ".tsv"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "interrupted.err", O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    // Mid-synthesis: the temporary exists and has audio in it.
    const std::string temporary = output + ".tmp-" + std::to_string(pid) + "-";
    bool writing = false;
    for (auto start = std::chrono::steady_clock::now();
         !writing && std::chrono::steady_clock::now() - start < std::chrono::seconds(120);) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      for (const std::string& name : files_starting(".", temporary))
        writing = writing || fs::file_size(name) > 4096;
    }
    EXPECT_TRUE(writing) << slurp("interrupted.err");
    ::kill(pid, signal);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal)
        << "status " << status << ": " << slurp("interrupted.err");
    EXPECT_EQ(files_starting(".", output), std::vector<std::string>{}) << "signal " << signal;
  }
  fs::current_path(previous);
}

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
