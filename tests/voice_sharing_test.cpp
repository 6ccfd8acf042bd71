// A voice as one file (tts/voice_sharing/voice_archive.h): `tts voices export` → `tts voices
// install` into another folder speaks byte for byte as the original; a voice whose vocoder/ links
// to a shared folder exports whole; and every archive the installer must refuse (tampered, path
// traversal, absolute path, link, wrong checksum or size, newer versions, no manifest, duplicates)
// is refused naming the entry, leaving the target folder as it was. Crafted archives are written
// here with libarchive, as an attacker would write them.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "file_bytes.h"
#include "run_tts.h"
#include "temp_folder.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_random.h"
#include "tts/voice_sharing/voice_archive.h"

namespace {

namespace fs = std::filesystem;
using tts::testing_support::TempFolder;

using tts::testing_support::read_file;

using tts::testing_support::write_file;

std::string hex8(std::uint32_t v) {
  char text[9];
  std::snprintf(text, sizeof text, "%08x", v);
  return text;
}

// One entry of a crafted tar.
struct Entry {
  Entry(std::string p, std::string d, unsigned t = AE_IFREG, std::string l = "")
      : path(std::move(p)), data(std::move(d)), type(t), link(std::move(l)) {}
  std::string path;
  std::string data;
  unsigned type = AE_IFREG;
  std::string link;  // a symbolic link's target
};

// A gzip'ed tar of `entries`, in order, written as the attacker likes.
void write_tar(const fs::path& file, const std::vector<Entry>& entries) {
  archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_pax_restricted(a);
  ASSERT_EQ(archive_write_open_filename(a, file.c_str()), ARCHIVE_OK);
  for (const Entry& e : entries) {
    archive_entry* h = archive_entry_new();
    archive_entry_set_pathname(h, e.path.c_str());
    archive_entry_set_filetype(h, e.type);
    archive_entry_set_perm(h, 0644);
    if (e.type == AE_IFLNK) archive_entry_set_symlink(h, e.link.c_str());
    archive_entry_set_size(h, e.type == AE_IFREG ? static_cast<la_int64_t>(e.data.size()) : 0);
    ASSERT_EQ(archive_write_header(a, h), ARCHIVE_OK) << archive_error_string(a);
    if (e.type == AE_IFREG) archive_write_data(a, e.data.data(), e.data.size());
    archive_entry_free(h);
  }
  archive_write_close(a);
  archive_write_free(a);
}

// The regular entries of an archive, path → bytes, and whether it holds anything else.
struct ArchiveContents {
  std::vector<std::string> order;
  std::map<std::string, std::string> files;
  bool only_regular = true;
};

ArchiveContents read_tar(const fs::path& file) {
  ArchiveContents out;
  archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_all(a);
  EXPECT_EQ(archive_read_open_filename(a, file.c_str(), 1 << 16), ARCHIVE_OK);
  archive_entry* h = nullptr;
  while (archive_read_next_header(a, &h) == ARCHIVE_OK) {
    const std::string path = archive_entry_pathname(h);
    out.order.push_back(path);
    if (archive_entry_filetype(h) != AE_IFREG) out.only_regular = false;
    std::string data(static_cast<std::size_t>(archive_entry_size(h)), '\0');
    if (!data.empty()) archive_read_data(a, data.data(), data.size());
    out.files[path] = data;
  }
  archive_read_free(a);
  return out;
}

// run_tts with environment assignments ("NAME=value ") before the command.
CommandResult run_tts_with(const std::string& environment, const std::string& arguments) {
  const std::string command =
      environment + std::string(TTS_BINARY_DIR) + "/tools/tts " + arguments + " 2>&1";
  CommandResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) r.output.append(buffer, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The CRC-32 (IEEE) of a string, computed here independently of the library under test.
std::uint32_t crc32_of(const std::string& bytes) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return ~c;
}

class VoiceSharing : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = new TempFolder("tts-voice-sharing-");
    tts::engine::RandomVoiceOptions o;
    o.name = "babble";
    o.seed = 7;
    tts::engine::create_random_voice(voice(), o);
    write_file(voice() / "MODEL_CARD.md", "# babble\nA random voice for tests.\n");
    // The voice's files as a valid archive holds them, for the crafted archives.
    for (const char* p :
         {"voice.json", "MODEL_CARD.md", "acoustic/acoustic.json", "acoustic/acoustic.safetensors",
          "vocoder/vocoder.json", "vocoder/vocoder.safetensors"})
      voice_files_.push_back({p, read_file(voice() / p)});
  }
  static void TearDownTestSuite() {
    delete folder_;
    voice_files_.clear();
  }
  static fs::path voice() { return folder_->path() / "voices" / "babble"; }

  // ttsvoice.json for `files` (path → bytes), each with its real size and CRC-32; `edit` changes
  // it before it is written.
  static std::string manifest(const std::function<void(nlohmann::json&)>& edit = nullptr) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& [path, bytes] : voice_files_)
      files.push_back({{"path", path}, {"bytes", bytes.size()}, {"crc32", hex8(crc32_of(bytes))}});
    nlohmann::json j = {{"format", "tts-voice-archive"},
                        {"format_version", 1},
                        {"name", "babble"},
                        {"voice_format_version", 2},
                        {"files", files}};
    if (edit) edit(j);
    return j.dump();
  }
  // A valid archive's entries: the manifest, then every file under babble/.
  static std::vector<Entry> valid_entries() {
    std::vector<Entry> entries = {{"ttsvoice.json", manifest()}};
    for (const auto& [path, bytes] : voice_files_) entries.push_back({"babble/" + path, bytes});
    return entries;
  }

  // Installs `entries` as an archive into an empty folder: it must be refused with an ArchiveError
  // whose message holds every one of `expected`, and leave the folder empty.
  void expect_refused(const std::vector<Entry>& entries, const std::vector<std::string>& expected) {
    TempFolder work;
    write_tar(work / "crafted.ttsvoice", entries);
    const fs::path target = work / "target";
    fs::create_directories(target);
    try {
      tts::sharing::install_voice(work / "crafted.ttsvoice", {target, false});
      ADD_FAILURE() << "the crafted archive was installed";
    } catch (const tts::sharing::ArchiveError& e) {
      for (const std::string& text : expected)
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
            << "\"" << text << "\" not in: " << e.what();
    }
    EXPECT_TRUE(fs::is_empty(target)) << "the refused archive left files in the target folder";
    EXPECT_FALSE(fs::exists(work / "x")) << "a path outside the target was written";
  }

  static TempFolder* folder_;
  static std::vector<std::pair<std::string, std::string>> voice_files_;
};

TempFolder* VoiceSharing::folder_ = nullptr;
std::vector<std::pair<std::string, std::string>> VoiceSharing::voice_files_;

TEST_F(VoiceSharing, ExportThenInstallElsewhereSpeaksIdentically) {
  TempFolder work;
  const std::string archive = (work / "babble.ttsvoice").string();
  CommandResult r = run_tts("voices export " + voice().string() + " -o " + archive);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote voice \"babble\""), std::string::npos) << r.output;

  // The archive: the manifest first, then babble/..., regular files only, each as it is on disk.
  const ArchiveContents contents = read_tar(archive);
  ASSERT_FALSE(contents.order.empty());
  EXPECT_EQ(contents.order.front(), "ttsvoice.json");
  EXPECT_TRUE(contents.only_regular);
  for (const auto& [path, bytes] : voice_files_)
    EXPECT_TRUE(contents.files.at("babble/" + path) == bytes) << path;
  const nlohmann::json m = nlohmann::json::parse(contents.files.at("ttsvoice.json"));
  EXPECT_EQ(m.at("format"), "tts-voice-archive");
  EXPECT_EQ(m.at("name"), "babble");
  EXPECT_EQ(m.at("files").size(), contents.order.size() - 1);

  r = run_tts("voices install " + archive + " --to " + (work / "other").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path installed = work / "other" / "babble";
  ASSERT_TRUE(fs::is_regular_file(installed / "voice.json"));
  EXPECT_EQ(read_file(installed / "MODEL_CARD.md"), read_file(voice() / "MODEL_CARD.md"));
  // Nothing else is left in the folder: no temporary.
  EXPECT_EQ(std::distance(fs::directory_iterator(work / "other"), fs::directory_iterator()), 1);

  const std::string say = "say --seed 11 \"Hello there. A second sentence.\" ";
  r = run_tts(say + "--voice " + voice().string() + " -o " + (work / "original.wav").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_tts(say + "--voice " + installed.string() + " -o " + (work / "installed.wav").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string original = read_file(work / "original.wav");
  EXPECT_GT(original.size(), 1000u);
  EXPECT_TRUE(original == read_file(work / "installed.wav"))
      << "the installed voice speaks otherwise";

  // The same voice exported again makes the same archive.
  r = run_tts("voices export " + installed.string() + " -o " + (work / "again.ttsvoice").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(read_file(work / "again.ttsvoice") == read_file(archive)) << "archives differ";
}

TEST_F(VoiceSharing, AVoiceWithASharedVocoderExportsWhole) {
  TempFolder work;
  // voices/shared-vocoder and voices/linked, whose vocoder/ is a relative link to it, as the
  // bundled voices are laid out.
  fs::create_directories(work / "voices");
  fs::copy(voice(), work / "voices" / "linked", fs::copy_options::recursive);
  fs::rename(work / "voices" / "linked" / "vocoder", work / "voices" / "shared-vocoder");
  fs::create_directory_symlink("../shared-vocoder", work / "voices" / "linked" / "vocoder");
  tts::engine::Voice::load(work / "voices" / "linked");

  const tts::sharing::ExportSummary s =
      tts::sharing::export_voice(work / "voices" / "linked", work / "linked.ttsvoice");
  EXPECT_EQ(s.name, "linked");
  EXPECT_EQ(s.files, voice_files_.size());
  const ArchiveContents contents = read_tar(work / "linked.ttsvoice");
  EXPECT_TRUE(contents.only_regular);
  EXPECT_TRUE(contents.files.at("linked/vocoder/vocoder.safetensors") ==
              read_file(voice() / "vocoder" / "vocoder.safetensors"));

  // Without the shared folder, the archive still installs a voice that loads.
  fs::remove_all(work / "voices");
  const fs::path installed =
      tts::sharing::install_voice(work / "linked.ttsvoice", {work / "target", false});
  EXPECT_EQ(installed, work / "target" / "linked");
  EXPECT_FALSE(fs::is_symlink(installed / "vocoder"));
  EXPECT_NO_THROW(tts::engine::Voice::load(installed));
}

TEST_F(VoiceSharing, InstallsAVoiceFolderWithItsLinksResolved) {
  TempFolder work;
  fs::create_directories(work / "voices");
  fs::copy(voice(), work / "voices" / "linked", fs::copy_options::recursive);
  fs::rename(work / "voices" / "linked" / "vocoder", work / "voices" / "shared-vocoder");
  fs::create_directory_symlink("../shared-vocoder", work / "voices" / "linked" / "vocoder");
  CommandResult r = run_tts("voices install " + (work / "voices" / "linked").string() + " --to " +
                            (work / "target").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path installed = work / "target" / "linked";
  EXPECT_FALSE(fs::is_symlink(installed / "vocoder"));
  EXPECT_TRUE(read_file(installed / "vocoder" / "vocoder.safetensors") ==
              read_file(voice() / "vocoder" / "vocoder.safetensors"));
  EXPECT_NO_THROW(tts::engine::Voice::load(installed));

  // A second install is refused without --force, and replaces the voice with it.
  write_file(installed / "marker", "old");
  r = run_tts("voices install " + (work / "voices" / "linked").string() + " --to " +
              (work / "target").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--force"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(installed / "marker"));
  r = run_tts("voices install " + (work / "voices" / "linked").string() + " --to " +
              (work / "target").string() + " --force");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(installed / "marker"));
  EXPECT_EQ(std::distance(fs::directory_iterator(work / "target"), fs::directory_iterator()), 1);
}

TEST_F(VoiceSharing, TheValidCraftedArchiveInstalls) {
  // The baseline of the refusals below: the same entries, unchanged, install.
  TempFolder work;
  write_tar(work / "valid.ttsvoice", valid_entries());
  EXPECT_NO_THROW(tts::sharing::install_voice(work / "valid.ttsvoice", {work / "t", false}));
  EXPECT_TRUE(fs::is_regular_file(work / "t" / "babble" / "voice.json"));
}

TEST_F(VoiceSharing, RefusesPathTraversal) {
  auto entries = valid_entries();
  entries.push_back({"babble/../../x", "escaped"});
  expect_refused(entries, {"\"babble/../../x\"", "\"..\""});
  entries = valid_entries();
  entries.insert(entries.begin() + 1, {"../x", "escaped"});
  expect_refused(entries, {"\"../x\"", "\"..\""});
}

TEST_F(VoiceSharing, RefusesAnAbsolutePath) {
  auto entries = valid_entries();
  entries.insert(entries.begin() + 1, {"/tmp/tts-voice-sharing-absolute", "escaped"});
  expect_refused(entries, {"\"/tmp/tts-voice-sharing-absolute\"", "absolute"});
  EXPECT_FALSE(fs::exists("/tmp/tts-voice-sharing-absolute"));
}

TEST_F(VoiceSharing, RefusesLinksAndFolders) {
  auto entries = valid_entries();
  entries.insert(entries.begin() + 1, {"babble/vocoder", "", AE_IFLNK, "/etc"});
  expect_refused(entries, {"\"babble/vocoder\"", "symbolic link"});
  entries = valid_entries();
  entries.insert(entries.begin() + 1, {"babble/fifo", "", AE_IFIFO});
  expect_refused(entries, {"\"babble/fifo\"", "FIFO"});
}

TEST_F(VoiceSharing, RefusesAWrongChecksum) {
  auto entries = valid_entries();
  std::string& bytes = entries.back().data;  // vocoder.safetensors, same size, one byte changed
  ASSERT_EQ(entries.back().path, "babble/vocoder/vocoder.safetensors");
  bytes[bytes.size() / 2] ^= 0x40;
  expect_refused(entries, {"\"babble/vocoder/vocoder.safetensors\"", "checksum mismatch"});
}

TEST_F(VoiceSharing, RefusesAWrongSize) {
  auto entries = valid_entries();
  entries.back().data += "extra";
  expect_refused(entries, {"\"babble/vocoder/vocoder.safetensors\"", "bytes"});
}

TEST_F(VoiceSharing, RefusesNewerVersions) {
  auto entries = valid_entries();
  entries[0].data = manifest([](nlohmann::json& j) { j["format_version"] = 2; });
  expect_refused(entries, {"ttsvoice.json", "format_version 2", "newer tts; upgrade"});
  entries[0].data = manifest(
      [](nlohmann::json& j) { j["voice_format_version"] = tts::engine::kVoiceFormatVersion + 1; });
  expect_refused(entries, {"ttsvoice.json", "voice_format_version", "newer tts; upgrade"});
}

TEST_F(VoiceSharing, RefusesAnArchiveWithoutItsManifestFirst) {
  auto entries = valid_entries();
  entries.erase(entries.begin());
  expect_refused(entries, {"first entry is \"babble/", "not ttsvoice.json"});
  entries = valid_entries();
  std::swap(entries[0], entries[1]);
  expect_refused(entries, {"first entry", "not ttsvoice.json"});
}

TEST_F(VoiceSharing, RefusesDuplicatesAndUnlistedOrMissingFiles) {
  auto entries = valid_entries();
  entries.push_back(entries[1]);
  expect_refused(entries, {"\"babble/voice.json\"", "appears twice"});
  entries = valid_entries();
  entries.push_back({"babble/extra.txt", "not in the manifest"});
  expect_refused(entries, {"\"babble/extra.txt\"", "not listed"});
  entries = valid_entries();
  entries.push_back({"other/voice.json", "{}"});
  expect_refused(entries, {"\"other/voice.json\"", "outside"});
  entries = valid_entries();
  entries.pop_back();
  expect_refused(entries, {"\"babble/vocoder/vocoder.safetensors\"", "does not hold it"});
}

TEST_F(VoiceSharing, RefusesABadNameOrManifestPath) {
  auto entries = valid_entries();
  entries[0].data = manifest([](nlohmann::json& j) { j["name"] = ".."; });
  expect_refused(entries, {"ttsvoice.json", "not a voice name"});
  entries[0].data = manifest([](nlohmann::json& j) {
    j["files"].push_back({{"path", "../x"}, {"bytes", 1}, {"crc32", "00000000"}});
  });
  expect_refused(entries, {"ttsvoice.json", "\"../x\"", "\"..\""});
  entries[0].data = manifest([](nlohmann::json& j) {
    j["files"].push_back({{"path", "big"}, {"bytes", 5ull << 30}, {"crc32", "00000000"}});
  });
  expect_refused(entries, {"ttsvoice.json", "4 GiB"});
}

TEST_F(VoiceSharing, RefusesATamperedArchiveFromTheCommand) {
  TempFolder work;
  const fs::path archive = work / "babble.ttsvoice";
  tts::sharing::export_voice(voice(), archive);
  std::string bytes = read_file(archive);
  bytes[bytes.size() / 2] ^= 0x01;
  write_file(work / "tampered.ttsvoice", bytes);
  const CommandResult r = run_tts("voices install " + (work / "tampered.ttsvoice").string() +
                                  " --to " + (work / "target").string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("damaged"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tampered.ttsvoice"), std::string::npos) << r.output;
  EXPECT_TRUE(!fs::exists(work / "target") || fs::is_empty(work / "target")) << r.output;
}

TEST_F(VoiceSharing, RemoveActsOnlyInItsFolderAndNeverFollowsALink) {
  TempFolder work;
  const fs::path target = work / "voices";
  tts::sharing::install_voice(voice(), {target, false});
  // A link to a voice elsewhere: removing it removes the link only.
  fs::create_directory_symlink(voice(), target / "alias");
  CommandResult r = run_tts("voices remove alias --to " + target.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(target / "alias"));
  EXPECT_TRUE(fs::is_regular_file(voice() / "voice.json"));
  // A voice holding a link to a folder outside: the folder outside survives.
  fs::create_directories(work / "outside");
  write_file(work / "outside" / "keep", "keep");
  fs::create_directory_symlink(work / "outside", target / "babble" / "linked");
  r = run_tts("voices remove babble --to " + target.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(target / "babble"));
  EXPECT_TRUE(fs::exists(work / "outside" / "keep"));
  EXPECT_TRUE(fs::is_empty(target));
  // A voice that is not in the folder, but on the search path elsewhere, is refused, saying where.
  r = run_tts("voices remove default --to " + target.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no voice \"default\" in " + target.string()), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("voices/default"), std::string::npos) << r.output;
  // A folder that is not a voice is never removed.
  fs::create_directories(target / "notes");
  r = run_tts("voices remove notes --to " + target.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(fs::exists(target / "notes"));
}

TEST_F(VoiceSharing, RemoveDefaultsToTheUserFolder) {
  TempFolder work;
  tts::sharing::install_voice(voice(), {work / "data" / "tts" / "voices", false});
  // The user's folder is this test's, never the real one of whoever runs it.
  const std::string env = "XDG_DATA_HOME=" + (work / "data").string() + " ";
  CommandResult r = run_tts_with(env, "voices remove babble");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(work / "data" / "tts" / "voices" / "babble"));
  // The bundled voices are only in the installed (here, the source tree's) folder: refused.
  r = run_tts_with(env, "voices remove default");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--system"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_regular_file(fs::path(TTS_SOURCE_DIR) / "voices" / "default" / "voice.json"));
}

TEST_F(VoiceSharing, CommandExitCodes) {
  TempFolder work;
  EXPECT_EQ(run_tts("voices export").exit_code, 2);
  EXPECT_EQ(run_tts("voices install").exit_code, 2);
  EXPECT_EQ(run_tts("voices remove").exit_code, 2);
  EXPECT_EQ(run_tts("voices install x --system --to y").exit_code, 2);
  // No such voice, or a file that is not an archive: bad input.
  CommandResult r = run_tts("voices export no-such-voice -o " + (work / "x.ttsvoice").string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_FALSE(fs::exists(work / "x.ttsvoice"));
  write_file(work / "not.ttsvoice", "just text\n");
  r = run_tts("voices install " + (work / "not.ttsvoice").string() + " --to " +
              (work / "t").string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  // A file that is not there, or a voice that is not installed: failure.
  r = run_tts("voices install " + (work / "missing.ttsvoice").string() + " --to " +
              (work / "t").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = run_tts("voices remove babble --to " + (work / "t").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  // Default output name: NAME.ttsvoice in the current folder.
  r = run_tts("voices export " + voice().string() + " -o " + (work / "out.ttsvoice").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace
