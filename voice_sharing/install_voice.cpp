// `tts voices install`: a .ttsvoice archive (or a voice folder) checked, unpacked beside the
// target, loaded, and renamed into place.
#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "archive_manifest.h"
#include "tts/engine/voice.h"
#include "tts/kernels/file_record.h"
#include "tts/voice_sharing/voice_archive.h"
#include "voice_folder_files.h"

namespace fs = std::filesystem;

namespace tts::sharing {

namespace {

// ttsvoice.json lists at most kMaxArchiveEntries files: far less JSON than this.
constexpr std::size_t kMaxManifestBytes = 16u << 20;

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

// The hidden folder a voice is unpacked into, inside the target folder (so that the final rename
// stays on one file system), removed with whatever is in it unless it was put in place.
class StagingFolder {
 public:
  StagingFolder(const fs::path& target, const std::string& name)
      : path_(target / ("." + name + ".installing-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~StagingFolder() {
    std::error_code ec;
    if (!placed_) fs::remove_all(path_, ec);
  }
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;
  const fs::path& path() const { return path_; }

  // Loads the unpacked voice as `tts say` would, then renames it to TARGET/NAME. A voice already
  // there is renamed aside first and removed once the new one is in (`force`), so a voice of that
  // name is there at every moment but one rename.
  fs::path place(const fs::path& target, const std::string& name, bool force) {
    engine::Voice::load(path_);
    const fs::path destination = target / name;
    std::error_code ec;
    const bool exists = fs::symlink_status(destination, ec).type() != fs::file_type::not_found;
    if (exists && !force)
      throw std::runtime_error("a voice named \"" + name + "\" is already in " + target.string() +
                               "; --force replaces it");
    fs::path old;
    if (exists) {
      old = target / ("." + name + ".replaced-" + std::to_string(::getpid()));
      fs::remove_all(old);
      fs::rename(destination, old);
    }
    try {
      fs::rename(path_, destination);
    } catch (...) {
      if (exists) fs::rename(old, destination, ec);
      throw;
    }
    placed_ = true;
    if (exists) fs::remove_all(old, ec);  // remove_all removes links, never what they point at
    return destination;
  }

 private:
  fs::path path_;
  bool placed_ = false;
};

void refuse_existing(const fs::path& target, const std::string& name, bool force) {
  std::error_code ec;
  if (!force && fs::symlink_status(target / name, ec).type() != fs::file_type::not_found)
    throw std::runtime_error("a voice named \"" + name + "\" is already in " + target.string() +
                             "; --force replaces it");
}

struct ArchiveReaderDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

// Reads a .ttsvoice archive entry by entry, each checked before a byte of it is written.
class ArchiveInstaller {
 public:
  explicit ArchiveInstaller(const fs::path& file) : a_(archive_read_new()), file_(file.string()) {
    if (!a_) throw std::runtime_error(file_ + ": cannot start reading an archive");
    // Named filters only: libarchive's others run external programs.
    archive_read_support_filter_gzip(a_.get());
    archive_read_support_filter_xz(a_.get());
    archive_read_support_format_tar(a_.get());
    if (archive_read_open_filename(a_.get(), file_.c_str(), 1 << 16) != ARCHIVE_OK)
      throw ArchiveError(file_ + ": not a .ttsvoice archive (" + error() + ")");
  }

  fs::path install(const InstallOptions& options) {
    archive_entry* entry = next();
    if (!entry) throw ArchiveError(file_ + ": empty; not a .ttsvoice archive");
    const std::string first = path_of(entry);
    if (first != kArchiveManifestName)
      throw ArchiveError(file_ + ": the first entry is " + quoted(first) + ", not " +
                         kArchiveManifestName + "; not a .ttsvoice archive");
    refuse_unless_regular(entry, first);
    const ArchiveManifest manifest = parse_manifest(read_manifest(entry), file_ + ": " + first);
    std::map<std::string, const ArchivedFile*> listed;
    for (const ArchivedFile& f : manifest.files) listed[manifest.name + "/" + f.path] = &f;

    refuse_existing(options.target, manifest.name, options.force);
    fs::create_directories(options.target);
    StagingFolder staging(options.target, manifest.name);
    std::set<std::string> seen;
    while ((entry = next()) != nullptr) {
      const std::string path = path_of(entry);
      refuse_unless_regular(entry, path);
      if (const std::string why = unsafe_path_reason(path); !why.empty()) refuse(path, why);
      const auto it = listed.find(path);
      if (it == listed.end())
        refuse(path, path.rfind(manifest.name + "/", 0) == 0
                         ? "not listed in " + std::string(kArchiveManifestName)
                         : "outside the voice's folder " + manifest.name + "/");
      if (!seen.insert(path).second) refuse(path, "appears twice");
      const ArchivedFile& f = *it->second;
      if (!archive_entry_size_is_set(entry) ||
          static_cast<std::uint64_t>(archive_entry_size(entry)) != f.bytes)
        refuse(path, std::to_string(archive_entry_size(entry)) + " bytes, " + kArchiveManifestName +
                         " says " + std::to_string(f.bytes));
      unpack(path, f, staging.path() / f.path);
    }
    for (const auto& [path, f] : listed)
      if (!seen.count(path))
        throw ArchiveError(file_ + ": " + kArchiveManifestName + " lists " + quoted(path) +
                           " but the archive does not hold it");
    return staging.place(options.target, manifest.name, options.force);
  }

 private:
  [[noreturn]] void refuse(const std::string& path, const std::string& problem) const {
    throw ArchiveError(file_ + ": entry " + quoted(path) + ": " + problem);
  }
  std::string error() const {
    const char* text = archive_error_string(a_.get());
    return text ? text : "unreadable";
  }

  // The next entry's header, or nullptr at the end; a damaged archive is refused.
  archive_entry* next() {
    archive_entry* entry = nullptr;
    const int status = archive_read_next_header(a_.get(), &entry);
    if (status == ARCHIVE_EOF) return nullptr;
    if (status < ARCHIVE_WARN) throw ArchiveError(file_ + ": damaged archive (" + error() + ")");
    if (++entries_ > kMaxArchiveEntries + 1)
      throw ArchiveError(file_ + ": more than " + std::to_string(kMaxArchiveEntries) + " entries");
    return entry;
  }

  std::string path_of(archive_entry* entry) const {
    const char* path = archive_entry_pathname(entry);
    if (!path) throw ArchiveError(file_ + ": an entry without a name");
    return path;
  }

  void refuse_unless_regular(archive_entry* entry, const std::string& path) const {
    const char* what = nullptr;
    switch (archive_entry_filetype(entry)) {
      case AE_IFREG:
        break;
      case AE_IFLNK:
        what = "a symbolic link";
        break;
      case AE_IFDIR:
        what = "a folder entry";
        break;
      case AE_IFCHR:
      case AE_IFBLK:
        what = "a device";
        break;
      case AE_IFIFO:
        what = "a FIFO";
        break;
      default:
        what = "not a regular file";
        break;
    }
    if (!what && archive_entry_hardlink(entry)) what = "a hard link";
    if (what) refuse(path, std::string(what) + "; a .ttsvoice archive holds regular files only");
  }

  std::string read_manifest(archive_entry* entry) {
    if (!archive_entry_size_is_set(entry) ||
        static_cast<std::uint64_t>(archive_entry_size(entry)) > kMaxManifestBytes)
      refuse(kArchiveManifestName,
             "larger than " + std::to_string(kMaxManifestBytes >> 20) + " MiB");
    std::string text(static_cast<std::size_t>(archive_entry_size(entry)), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
      const la_ssize_t n = archive_read_data(a_.get(), text.data() + got, text.size() - got);
      if (n < 0) throw ArchiveError(file_ + ": damaged archive (" + error() + ")");
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (got != text.size()) refuse(kArchiveManifestName, "truncated");
    return text;
  }

  // Copies the entry's data to `destination`, checking its length and CRC-32 against `f`.
  void unpack(const std::string& path, const ArchivedFile& f, const fs::path& destination) {
    fs::create_directories(destination.parent_path());
    std::ofstream out(destination, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(destination.string() + ": cannot be written");
    kernels::Crc32 crc;
    std::uint64_t got = 0;
    buffer_.resize(1 << 20);
    while (true) {
      const la_ssize_t n = archive_read_data(a_.get(), buffer_.data(), buffer_.size());
      if (n < 0) refuse(path, "damaged archive (" + error() + ")");
      if (n == 0) break;
      got += static_cast<std::uint64_t>(n);
      if (got > f.bytes)
        refuse(path, "more bytes than " + std::string(kArchiveManifestName) + " says");
      crc.update(buffer_.data(), static_cast<std::size_t>(n));
      out.write(buffer_.data(), n);
    }
    if (got != f.bytes)
      refuse(path,
             "truncated (" + std::to_string(got) + " of " + std::to_string(f.bytes) + " bytes)");
    if (crc.value() != f.crc32)
      refuse(path, "checksum mismatch (CRC-32 " + hex32(crc.value()) + ", " + kArchiveManifestName +
                       " says " + hex32(f.crc32) +
                       "): the archive is damaged or was tampered with");
    out.close();
    if (!out) throw std::runtime_error(destination.string() + ": cannot be written");
  }

  std::unique_ptr<archive, ArchiveReaderDeleter> a_;
  std::string file_;
  std::size_t entries_ = 0;
  std::vector<char> buffer_;
};

// A voice folder: loaded where it is (so a broken one is refused before anything is copied), then
// its files, links resolved, copied into the staging folder and loaded again there.
fs::path install_folder(const fs::path& folder, const InstallOptions& options) {
  engine::Voice::load(folder);
  const std::string name = fs::canonical(folder).filename().string();
  if (!is_valid_voice_name(name))
    throw ArchiveError(folder.string() + ": " + quoted(name) +
                       " is not a voice name (1 to 100 of A-Z a-z 0-9 . _ -, not starting with .)");
  const std::vector<VoiceFolderFile> files = voice_folder_files(folder);
  refuse_existing(options.target, name, options.force);
  fs::create_directories(options.target);
  std::error_code ec;
  if (fs::equivalent(folder, options.target / name, ec))
    throw std::runtime_error(folder.string() + " is already installed there");
  StagingFolder staging(options.target, name);
  for (const VoiceFolderFile& f : files) {
    const fs::path destination = staging.path() / f.path;
    fs::create_directories(destination.parent_path());
    fs::copy_file(f.source, destination);
  }
  return staging.place(options.target, name, options.force);
}

}  // namespace

fs::path install_voice(const fs::path& source, const InstallOptions& options) {
  std::error_code ec;
  if (fs::is_directory(source, ec)) return install_folder(source, options);
  if (!fs::is_regular_file(source, ec))
    throw std::runtime_error(source.string() + ": no such file or voice folder");
  return ArchiveInstaller(source).install(options);
}

}  // namespace tts::sharing
