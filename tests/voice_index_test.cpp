// A voices.json index (tts/voice_sharing/voice_index.h): `tts voices index` of two exported
// voices lists each with its languages, size, SHA-256 (checked here with sha256sum) and URL;
// `tts voices install NAME --index` installs one that speaks byte for byte as the original, from
// the index file and from a real HTTP server (python3 -m http.server) serving the folder; an
// archive whose size or checksum differs from the index, an unknown name, a 404 and a newer or
// malformed index are refused with messages naming what failed.
#include "tts/voice_sharing/voice_index.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "file_bytes.h"
#include "run_tts.h"
#include "temp_folder.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_random.h"
#include "tts/voice_sharing/voice_archive.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using tts::testing_support::TempFolder;

using tts::testing_support::read_file;

using tts::testing_support::write_file;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The SHA-256 of a file by coreutils' sha256sum, independently of the library under test.
std::string sha256sum(const fs::path& file) {
  FILE* pipe = ::popen(("sha256sum '" + file.string() + "'").c_str(), "r");
  if (!pipe) return "";
  char digest[65] = "";
  const std::size_t n = std::fread(digest, 1, 64, pipe);
  ::pclose(pipe);
  return std::string(digest, n);
}

// python3 -m http.server serving `folder` on 127.0.0.1, on a port the system picks (it prints
// which); stopped when this goes out of scope.
class HttpFolderServer {
 public:
  explicit HttpFolderServer(const fs::path& folder) {
    int out[2];
    if (::pipe(out) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    const std::string dir = folder.string();
    const char* argv[] = {"python3",   "-u",          "-m",        "http.server", "--bind",
                          "127.0.0.1", "--directory", dir.c_str(), "0",           nullptr};
    const int spawned =
        posix_spawnp(&pid_, "python3", &actions, nullptr, const_cast<char* const*>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (spawned != 0) {
      pid_ = -1;
      ::close(out[0]);
      return;
    }
    // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
    std::string line;
    char c = 0;
    while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
    pipe_ = out[0];
    const std::size_t at = line.find(" port ");
    if (at != std::string::npos) port_ = std::atoi(line.c_str() + at + 6);
  }
  ~HttpFolderServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    if (pipe_ >= 0) ::close(pipe_);
  }
  HttpFolderServer(const HttpFolderServer&) = delete;
  HttpFolderServer& operator=(const HttpFolderServer&) = delete;
  int port() const { return port_; }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + path;
  }

 private:
  pid_t pid_ = -1;
  int pipe_ = -1;
  int port_ = 0;
};

class VoiceIndex : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = new TempFolder("tts-voice-index-");
    tts::engine::RandomVoiceOptions o;
    o.name = "alpha";
    o.seed = 3;
    tts::engine::create_random_voice(voice("alpha"), o);
    o.name = "beta";
    o.seed = 4;
    o.languages = {"en-GB", "en-US"};
    o.language = "en-gb";
    tts::engine::create_random_voice(voice("beta"), o);
    fs::create_directories(archives());
    for (const char* name : {"alpha", "beta"})
      tts::sharing::export_voice(voice(name), archives() / (std::string(name) + ".ttsvoice"));
    index_run_ = new CommandResult(run_tts("voices index " + archives().string()));
  }
  static void TearDownTestSuite() {
    delete index_run_;
    delete folder_;
  }
  static fs::path voice(const std::string& name) { return folder_->path() / "voices" / name; }
  static fs::path archives() { return folder_->path() / "archives"; }
  static fs::path index() { return archives() / "voices.json"; }

  // A copy of the archives and their index in `work`, to tamper with.
  static fs::path copy_archives(const TempFolder& work) {
    fs::copy(archives(), work / "archives", fs::copy_options::recursive);
    return work / "archives";
  }

  // `tts say` of one sentence with the voice in `folder`, as bytes of a wav.
  static std::string speech(const fs::path& folder, const fs::path& wav) {
    const CommandResult r =
        run_tts("say --seed 5 \"Hello there.\" --voice " + folder.string() + " -o " + wav.string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return read_file(wav);
  }

  static TempFolder* folder_;
  static CommandResult* index_run_;
};

TempFolder* VoiceIndex::folder_ = nullptr;
CommandResult* VoiceIndex::index_run_ = nullptr;

TEST_F(VoiceIndex, ListsEachArchiveWithItsDetailsSizeAndChecksum) {
  ASSERT_EQ(index_run_->exit_code, 0) << index_run_->output;
  EXPECT_TRUE(contains(index_run_->output, "2 voices")) << index_run_->output;
  const nlohmann::json j = nlohmann::json::parse(read_file(index()));
  EXPECT_EQ(j.at("format"), "tts-voice-index");
  EXPECT_EQ(j.at("format_version"), 1);
  ASSERT_EQ(j.at("voices").size(), 2u);
  const nlohmann::json& alpha = j.at("voices").at(0);
  const nlohmann::json& beta = j.at("voices").at(1);
  EXPECT_EQ(alpha.at("name"), "alpha");
  EXPECT_EQ(alpha.at("languages"), nlohmann::json({"en-US"}));
  EXPECT_EQ(beta.at("name"), "beta");
  EXPECT_EQ(beta.at("languages"), nlohmann::json({"en-GB", "en-US"}));
  for (const nlohmann::json* v : {&alpha, &beta}) {
    const fs::path file = archives() / (v->at("name").get<std::string>() + ".ttsvoice");
    EXPECT_EQ(v->at("bytes").get<std::uint64_t>(), fs::file_size(file));
    EXPECT_EQ(v->at("sha256"), sha256sum(file));
    EXPECT_EQ(v->at("url"), file.filename().string());
    EXPECT_EQ(v->at("licence"), tts::engine::read_voice_info(voice(v->at("name"))).licence);
  }

  const CommandResult r = run_tts("voices available --index " + index().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "alpha")) << r.output;
  EXPECT_TRUE(contains(r.output, "en-GB,en-US")) << r.output;
}

TEST_F(VoiceIndex, InstallsByNameFromAnIndexFile) {
  TempFolder work;
  const CommandResult r = run_tts("voices install beta --index " + index().string() + " --to " +
                                  (work / "target").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path installed = work / "target" / "beta";
  ASSERT_TRUE(fs::is_regular_file(installed / "voice.json")) << r.output;
  // Only the voice is left in the target: neither the fetched archive nor a temporary.
  EXPECT_EQ(std::distance(fs::directory_iterator(work / "target"), fs::directory_iterator()), 1);
  const std::string original = speech(voice("beta"), work / "original.wav");
  EXPECT_GT(original.size(), 1000u);
  EXPECT_TRUE(original == speech(installed, work / "installed.wav"))
      << "the voice installed from the index speaks otherwise";
}

TEST_F(VoiceIndex, RefusesAnArchiveThatDiffersFromTheIndex) {
  TempFolder work;
  const fs::path copy = copy_archives(work);
  const fs::path target = work / "target";
  // Longer than the index says: refused before more than the index's size is read.
  write_file(copy / "alpha.ttsvoice", read_file(archives() / "alpha.ttsvoice") + "x");
  CommandResult r = run_tts("voices install alpha --index " + (copy / "voices.json").string() +
                            " --to " + target.string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, (copy / "voices.json").string() + ": voice \"alpha\": " +
                                     (copy / "alpha.ttsvoice").string() + ": size mismatch"))
      << r.output;
  // Shorter.
  std::string bytes = read_file(archives() / "alpha.ttsvoice");
  write_file(copy / "alpha.ttsvoice", bytes.substr(0, bytes.size() - 1));
  r = run_tts("voices install alpha --index " + (copy / "voices.json").string() + " --to " +
              target.string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "size mismatch")) << r.output;
  // The same size, one byte changed: only the checksum tells.
  bytes[bytes.size() / 2] ^= 0x10;
  write_file(copy / "alpha.ttsvoice", bytes);
  r = run_tts("voices install alpha --index " + (copy / "voices.json").string() + " --to " +
              target.string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "checksum mismatch")) << r.output;
  EXPECT_TRUE(contains(r.output, "voice \"alpha\"")) << r.output;
  // Another voice's archive under this one's name, with the index changed to match it.
  fs::copy_file(copy / "beta.ttsvoice", copy / "alpha.ttsvoice",
                fs::copy_options::overwrite_existing);
  nlohmann::json j = nlohmann::json::parse(read_file(copy / "voices.json"));
  j["voices"][0]["bytes"] = fs::file_size(copy / "alpha.ttsvoice");
  j["voices"][0]["sha256"] = sha256sum(copy / "alpha.ttsvoice");
  write_file(copy / "voices.json", j.dump());
  r = run_tts("voices install alpha --index " + (copy / "voices.json").string() + " --to " +
              target.string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "holds voice \"beta\", not \"alpha\"")) << r.output;
  EXPECT_TRUE(!fs::exists(target) || fs::is_empty(target)) << r.output;
}

TEST_F(VoiceIndex, RefusesAnUnknownNameListingWhatTheIndexOffers) {
  TempFolder work;
  const CommandResult r = run_tts("voices install gamma --index " + index().string() + " --to " +
                                  (work / "target").string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, index().string() + ": no voice \"gamma\"; it offers alpha, beta"))
      << r.output;
  EXPECT_FALSE(fs::exists(work / "target"));
}

TEST_F(VoiceIndex, InstallsOverHttpAndNamesTheUrlOfA404) {
  TempFolder work;
  const fs::path copy = copy_archives(work);
  const HttpFolderServer server(copy);
  ASSERT_GT(server.port(), 0) << "python3 -m http.server did not start";
  CommandResult r = run_tts("voices install alpha --index " + server.url("voices.json") + " --to " +
                            (work / "target").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(speech(voice("alpha"), work / "original.wav") ==
              speech(work / "target" / "alpha", work / "installed.wav"));

  r = run_tts("voices available --index " + server.url("voices.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "beta")) << r.output;

  // An archive longer than the index says: the transfer stops at the index's size.
  const std::string alpha = read_file(copy / "alpha.ttsvoice");
  write_file(copy / "alpha.ttsvoice", alpha + std::string(100000, 'x'));
  r = run_tts("voices install alpha --index " + server.url("voices.json") + " --to " +
              (work / "again").string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, server.url("alpha.ttsvoice") + ": size mismatch")) << r.output;
  EXPECT_FALSE(fs::exists(work / "again" / "alpha"));

  // No such index: the URL and the status.
  r = run_tts("voices install alpha --index " + server.url("missing.json") + " --to " +
              (work / "target").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, server.url("missing.json") + ": HTTP status 404")) << r.output;
  // An index whose archive is gone: the index, the voice, the archive's URL and the status.
  fs::remove(copy / "beta.ttsvoice");
  r = run_tts("voices install beta --index " + server.url("voices.json") + " --to " +
              (work / "target").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, server.url("voices.json") + ": voice \"beta\": " +
                                     server.url("beta.ttsvoice") + ": HTTP status 404"))
      << r.output;
  EXPECT_FALSE(fs::exists(work / "target" / "beta"));
}

TEST_F(VoiceIndex, ABaseUrlMakesTheIndexPointAtTheServer) {
  TempFolder work;
  const HttpFolderServer server(archives());
  ASSERT_GT(server.port(), 0) << "python3 -m http.server did not start";
  CommandResult r =
      run_tts("voices index " + archives().string() + " -o " + (work / "elsewhere.json").string() +
              " --base-url " + server.url("").substr(0, server.url("").size() - 1));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(read_file(work / "elsewhere.json"));
  EXPECT_EQ(j.at("voices").at(0).at("url"), server.url("alpha.ttsvoice"));
  // The index is a local file; the archive it names is fetched from the server.
  r = run_tts("voices install alpha --index " + (work / "elsewhere.json").string() + " --to " +
              (work / "target").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NO_THROW(tts::engine::Voice::load(work / "target" / "alpha"));
}

TEST_F(VoiceIndex, RefusesAMalformedOrNewerIndex) {
  using tts::sharing::IndexError;
  using tts::sharing::parse_index;
  const std::string good = read_file(index());
  EXPECT_EQ(parse_index(good, "good").voices.size(), 2u);
  auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& why) {
    nlohmann::json j = nlohmann::json::parse(good);
    edit(j);
    try {
      parse_index(j.dump(), "idx.json");
      ADD_FAILURE() << "accepted: " << why;
    } catch (const IndexError& e) {
      EXPECT_TRUE(contains(e.what(), "idx.json: ")) << e.what();
      EXPECT_TRUE(contains(e.what(), why)) << e.what();
    }
  };
  refused([](nlohmann::json& j) { j["format"] = "tts-voice-archive"; }, "not a voice index");
  refused([](nlohmann::json& j) { j["format_version"] = 2; }, "newer tts; upgrade");
  refused([](nlohmann::json& j) { j["voices"][1]["name"] = "alpha"; }, "listed twice");
  refused([](nlohmann::json& j) { j["voices"][0]["name"] = "../x"; }, "not a voice name");
  refused([](nlohmann::json& j) { j["voices"][0]["sha256"] = "abc"; }, "\"sha256\"");
  refused([](nlohmann::json& j) { j["voices"][0]["bytes"] = 5ull << 30; }, "\"bytes\"");
  refused([](nlohmann::json& j) { j["voices"][0].erase("url"); }, "\"url\" is missing");

  // A URL of another scheme is never fetched.
  tts::sharing::IndexedVoice v;
  v.name = "alpha";
  v.url = "file:///etc/passwd";
  EXPECT_THROW(tts::sharing::archive_location("idx.json", v), IndexError);
  v.url = "sub/alpha.ttsvoice";
  EXPECT_EQ(tts::sharing::archive_location("https://example.org/v/voices.json", v),
            "https://example.org/v/sub/alpha.ttsvoice");
  EXPECT_EQ(tts::sharing::archive_location("/srv/v/voices.json", v), "/srv/v/sub/alpha.ttsvoice");
}

TEST_F(VoiceIndex, CommandExitCodes) {
  TempFolder work;
  EXPECT_EQ(run_tts("voices index").exit_code, 2);
  EXPECT_EQ(run_tts("voices available").exit_code, 2);
  fs::create_directories(work / "empty");
  CommandResult r = run_tts("voices index " + (work / "empty").string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "no .ttsvoice files")) << r.output;
  r = run_tts("voices available --index " + (work / "missing.json").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "missing.json: no such file")) << r.output;
}

}  // namespace
