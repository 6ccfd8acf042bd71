// The files of a voice folder as an archive holds them: every regular file under it, with links
// (a vocoder/ shared with other voices) followed, so that the copy stands alone. Private to
// tts_voice_sharing.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tts::sharing {

struct VoiceFolderFile {
  std::string path;              // inside the voice folder, '/'-separated
  std::filesystem::path source;  // where its bytes are read from
};

// In path order. Throws ArchiveError naming a device, FIFO or socket, a dangling link, a link loop,
// or a file name that an archive could not carry (unsafe_path_reason).
std::vector<VoiceFolderFile> voice_folder_files(const std::filesystem::path& folder);

}  // namespace tts::sharing
