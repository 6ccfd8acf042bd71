#include "voice_folder_files.h"

#include <algorithm>
#include <set>

#include "archive_manifest.h"
#include "tts/voice_sharing/voice_archive.h"

namespace fs = std::filesystem;

namespace tts::sharing {

namespace {

// `open` holds the canonical folders being walked, so that a link back up is a loop, not an
// endless walk.
void collect(const fs::path& folder, const std::string& prefix, std::set<fs::path>& open,
             std::vector<VoiceFolderFile>& out) {
  std::error_code ec;
  const fs::path real = fs::canonical(folder, ec);
  if (ec) throw ArchiveError(folder.string() + ": " + ec.message());
  if (!open.insert(real).second)
    throw ArchiveError(folder.string() + ": a link loop (it leads back to " + real.string() + ")");
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    const std::string path = prefix + name;
    if (const std::string why = unsafe_path_reason(path); !why.empty())
      throw ArchiveError(entry.path().string() + ": " + why);
    const fs::file_status status = fs::status(entry.path(), ec);  // through links
    if (ec || status.type() == fs::file_type::not_found)
      throw ArchiveError(entry.path().string() + ": a link to nothing");
    if (fs::is_directory(status)) {
      collect(entry.path(), path + "/", open, out);
    } else if (fs::is_regular_file(status)) {
      out.push_back({path, entry.path()});
    } else {
      throw ArchiveError(entry.path().string() +
                         ": not a regular file or folder (a device, FIFO or socket); a voice "
                         "folder holds files only");
    }
  }
  open.erase(real);
}

}  // namespace

std::vector<VoiceFolderFile> voice_folder_files(const fs::path& folder) {
  std::vector<VoiceFolderFile> files;
  std::set<fs::path> open;
  collect(folder, "", open, files);
  std::sort(files.begin(), files.end(),
            [](const VoiceFolderFile& a, const VoiceFolderFile& b) { return a.path < b.path; });
  return files;
}

}  // namespace tts::sharing
