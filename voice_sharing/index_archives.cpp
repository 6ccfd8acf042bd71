// `tts voices index`: a voices.json for the .ttsvoice files in a folder, from each archive's
// ttsvoice.json and voice.json (read without unpacking the weights) and the file's size and
// SHA-256.
#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>

#include "archive_manifest.h"
#include "archive_voice_info.h"
#include "scratch_folder.h"
#include "tts/engine/voice.h"
#include "tts/voice_sharing/voice_index.h"

namespace fs = std::filesystem;

namespace tts::sharing {

namespace {

// voice.json and ttsvoice.json are a few KiB; this bounds what a hostile archive makes us read.
constexpr std::size_t kMaxIndexedJsonBytes = 16u << 20;

struct IndexReaderDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

std::string read_entry_text(archive* a, archive_entry* entry, const std::string& where) {
  if (!archive_entry_size_is_set(entry) ||
      static_cast<std::uint64_t>(archive_entry_size(entry)) > kMaxIndexedJsonBytes)
    throw ArchiveError(where + ": larger than " + std::to_string(kMaxIndexedJsonBytes >> 20) +
                       " MiB");
  std::string text(static_cast<std::size_t>(archive_entry_size(entry)), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const la_ssize_t n = archive_read_data(a, text.data() + done, text.size() - done);
    if (n <= 0) throw ArchiveError(where + ": damaged archive (" + archive_error_string(a) + ")");
    done += static_cast<std::size_t>(n);
  }
  return text;
}

std::string escape_path_segment(const std::string& text) {
  const std::unique_ptr<char, decltype(&curl_free)> escaped(
      curl_easy_escape(nullptr, text.c_str(), static_cast<int>(text.size())), &curl_free);
  if (!escaped) throw std::runtime_error("cannot percent-encode " + text);
  return escaped.get();
}

}  // namespace

// voice.json is written to a scratch folder, since read_voice_info reads a folder.
engine::VoiceInfo read_archived_voice_info(const fs::path& file) {
  const std::string where = file.string();
  const std::unique_ptr<archive, IndexReaderDeleter> a(archive_read_new());
  if (!a) throw std::runtime_error(where + ": cannot start reading an archive");
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_xz(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), where.c_str(), 1 << 16) != ARCHIVE_OK)
    throw ArchiveError(where + ": not a .ttsvoice archive (" + archive_error_string(a.get()) + ")");
  archive_entry* entry = nullptr;
  if (archive_read_next_header(a.get(), &entry) != ARCHIVE_OK ||
      std::string(archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "") !=
          kArchiveManifestName)
    throw ArchiveError(where + ": the first entry is not " + std::string(kArchiveManifestName) +
                       "; not a .ttsvoice archive");
  const ArchiveManifest manifest =
      parse_manifest(read_entry_text(a.get(), entry, where + ": " + kArchiveManifestName),
                     where + ": " + kArchiveManifestName);
  const std::string voice_json = manifest.name + "/voice.json";
  int status = ARCHIVE_OK;
  while ((status = archive_read_next_header(a.get(), &entry)) == ARCHIVE_OK) {
    const char* path = archive_entry_pathname(entry);
    if (!path || voice_json != path || archive_entry_filetype(entry) != AE_IFREG) continue;
    const std::string text = read_entry_text(a.get(), entry, where + ": " + voice_json);
    const ScratchFolder scratch;
    std::ofstream(scratch.path() / "voice.json", std::ios::binary) << text;
    engine::VoiceInfo info;
    try {
      info = engine::read_voice_info(scratch.path());
    } catch (const engine::VoiceError& e) {
      throw ArchiveError(where + ": " + voice_json + ": " + e.what());
    }
    // An archive installs as its folder's name (ttsvoice.json's), which is what the index offers.
    info.name = manifest.name;
    return info;
  }
  if (status != ARCHIVE_EOF)
    throw ArchiveError(where + ": damaged archive (" + archive_error_string(a.get()) + ")");
  throw ArchiveError(where + ": holds no " + voice_json);
}

VoiceIndex index_archives(const fs::path& folder, const std::string& base_url) {
  if (!fs::is_directory(folder)) throw IndexError(folder.string() + ": not a folder");
  std::vector<fs::path> archives;
  for (const fs::directory_entry& e : fs::directory_iterator(folder))
    if (e.is_regular_file() && e.path().extension() == kArchiveExtension)
      archives.push_back(e.path());
  if (archives.empty())
    throw IndexError(folder.string() + ": no " + std::string(kArchiveExtension) +
                     " files to index");
  std::sort(archives.begin(), archives.end());
  std::string prefix = base_url;
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  VoiceIndex index;
  std::map<std::string, fs::path> seen;
  for (const fs::path& file : archives) {
    const engine::VoiceInfo info = read_archived_voice_info(file);
    IndexedVoice v;
    v.name = info.name;
    if (const auto [it, inserted] = seen.emplace(v.name, file); !inserted)
      throw IndexError(folder.string() + ": " + it->second.filename().string() + " and " +
                       file.filename().string() + " are both voice \"" + v.name + "\"");
    v.languages = info.languages;
    v.speaker = info.speaker;
    v.sex = info.sex;
    v.licence = info.licence;
    v.description = info.description;
    v.bytes = fs::file_size(file);
    v.sha256 = sha256_of_file(file);
    v.url = prefix + escape_path_segment(file.filename().string());
    index.voices.push_back(std::move(v));
  }
  return index;
}

}  // namespace tts::sharing
