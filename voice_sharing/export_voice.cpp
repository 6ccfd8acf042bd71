// `tts voices export`: a voice folder, links resolved, into one .ttsvoice archive.
#include <archive.h>
#include <archive_entry.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "archive_manifest.h"
#include "tts/engine/voice.h"
#include "tts/kernels/atomic_file.h"
#include "tts/kernels/file_record.h"
#include "tts/voice_sharing/voice_archive.h"
#include "voice_folder_files.h"

namespace fs = std::filesystem;

namespace tts::sharing {

namespace {

struct ArchiveWriterDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};

// libarchive's output into the stream of write_file_atomically.
la_ssize_t write_to_stream(archive*, void* stream, const void* data, size_t size) {
  auto& out = *static_cast<std::ostream*>(stream);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  return out ? static_cast<la_ssize_t>(size) : -1;
}

class TarWriter {
 public:
  TarWriter(std::ostream& out, const fs::path& where) : a_(archive_write_new()), where_(where) {
    if (!a_) throw std::runtime_error(where.string() + ": cannot start an archive");
    // gzip: the weights are float32 noise to a compressor; xz saves 0.7% more of a bundled voice
    // at 16 times the time (docs/voice-format.md, "Sharing a voice").
    check(archive_write_add_filter_gzip(a_.get()));
    check(archive_write_set_filter_option(a_.get(), "gzip", "timestamp", nullptr));  // reproducible
    check(archive_write_set_format_pax_restricted(a_.get()));
    check(archive_write_set_bytes_in_last_block(a_.get(), 1));
    check(archive_write_open2(a_.get(), &out, nullptr, write_to_stream, nullptr, nullptr));
  }

  // A regular file's header; its `bytes` of data follow through data().
  void begin_file(const std::string& path, std::uint64_t bytes) {
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> e(archive_entry_new(),
                                                               archive_entry_free);
    archive_entry_set_pathname(e.get(), path.c_str());
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(bytes));
    archive_entry_set_mtime(e.get(), 0, 0);  // the same voice makes the same archive
    check(archive_write_header(a_.get(), e.get()));
  }
  void data(const char* bytes, std::size_t size) {
    if (archive_write_data(a_.get(), bytes, size) != static_cast<la_ssize_t>(size))
      check(ARCHIVE_FATAL);
  }
  void finish() { check(archive_write_close(a_.get())); }

 private:
  void check(int status) {
    if (status < ARCHIVE_WARN)
      throw std::runtime_error(where_.string() + ": " + archive_error_string(a_.get()));
  }
  std::unique_ptr<archive, ArchiveWriterDeleter> a_;
  fs::path where_;
};

int voice_format_version_of(const fs::path& folder) {
  std::ifstream in(folder / "voice.json");
  return nlohmann::json::parse(in).at("format_version").get<int>();
}

}  // namespace

ExportSummary export_voice(const fs::path& voice_folder, const fs::path& archive_path) {
  engine::Voice::load(voice_folder);  // throws engine::VoiceError naming the problem
  ExportSummary summary;
  ArchiveManifest manifest;
  manifest.name = fs::canonical(voice_folder).filename().string();
  if (!is_valid_voice_name(manifest.name))
    throw ArchiveError(voice_folder.string() + ": \"" + manifest.name +
                       "\" is not a voice name (1 to 100 of A-Z a-z 0-9 . _ -, not starting "
                       "with .); rename the folder");
  manifest.voice_format_version = voice_format_version_of(voice_folder);
  std::vector<VoiceFolderFile> files;
  for (VoiceFolderFile& f : voice_folder_files(voice_folder))
    if (!kernels::is_atomic_temporary_name(f.source.filename().string()))
      files.push_back(std::move(f));
  for (const VoiceFolderFile& f : files) {
    manifest.files.push_back({f.path, fs::file_size(f.source), kernels::file_crc32(f.source)});
    summary.bytes += manifest.files.back().bytes;
  }
  summary.name = manifest.name;
  summary.files = files.size();

  kernels::write_file_atomically(archive_path, [&](std::ostream& out) {
    TarWriter tar(out, archive_path);
    const std::string manifest_text = manifest_json(manifest);
    tar.begin_file(kArchiveManifestName, manifest_text.size());
    tar.data(manifest_text.data(), manifest_text.size());
    std::vector<char> buffer(1 << 20);
    for (std::size_t i = 0; i < files.size(); ++i) {
      const ArchivedFile& listed = manifest.files[i];
      tar.begin_file(manifest.name + "/" + listed.path, listed.bytes);
      std::ifstream in(files[i].source, std::ios::binary);
      if (!in) throw std::runtime_error(files[i].source.string() + ": cannot be read");
      kernels::Crc32 crc;
      std::uint64_t copied = 0;
      while (copied < listed.bytes) {
        in.read(buffer.data(), static_cast<std::streamsize>(
                                   std::min<std::uint64_t>(buffer.size(), listed.bytes - copied)));
        const auto n = static_cast<std::size_t>(in.gcount());
        if (n == 0) break;
        crc.update(buffer.data(), n);
        tar.data(buffer.data(), n);
        copied += n;
      }
      // The archive promises the size and checksum measured above: a file changed meanwhile
      // would make an archive that every install refuses.
      if (copied != listed.bytes || in.peek() != std::char_traits<char>::eof() ||
          crc.value() != listed.crc32)
        throw std::runtime_error(files[i].source.string() +
                                 ": changed while it was being exported; export again");
    }
    tar.finish();
  });
  summary.archive_bytes = fs::file_size(archive_path);
  return summary;
}

}  // namespace tts::sharing
