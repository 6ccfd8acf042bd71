// A voice as one file: `tts voices export`, `tts voices install` and `tts voices remove`
// (docs/voice-format.md, "Sharing a voice").
//
// A .ttsvoice archive is a tar (pax), compressed with gzip, holding
//
//   ttsvoice.json     first: {"format": "tts-voice-archive", "format_version": 1, "name",
//                     "voice_format_version", "files": [{"path", "bytes", "crc32"}, ...]}
//   NAME/...          every file of the voice folder, regular files only, each listed in
//                     ttsvoice.json with its size and CRC-32
//
// Links in the voice folder (a vocoder/ shared with other voices) are resolved when exporting, so
// an archive stands alone. Installing reads the archive once, streaming, and refuses it (naming the
// entry) before a refused entry's bytes are written anywhere a voice is looked for; the files go to
// a hidden temporary folder inside the target folder, the voice is loaded from there as `tts say`
// would, and only then is it renamed into place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace tts::sharing {

inline constexpr const char* kArchiveFormat = "tts-voice-archive";
inline constexpr int kArchiveFormatVersion = 1;
inline constexpr const char* kArchiveManifestName = "ttsvoice.json";
inline constexpr const char* kArchiveExtension = ".ttsvoice";
// What an archive may unpack to: a voice of the full size is about 15 MiB in a dozen files, so
// these bound a hostile archive's use of the disk without limiting any real voice.
inline constexpr std::uint64_t kMaxArchiveBytes = 4ull << 30;
inline constexpr std::size_t kMaxArchiveEntries = 10000;

// An archive (or voice folder) refused: malformed, tampered with, unsafe, or of a newer format.
// The message names the archive, the entry and the problem.
class ArchiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether `name` can name an installed voice: 1 to 100 of A-Z a-z 0-9 . _ -, not starting with
// '.' (the hidden names are this library's temporary folders).
bool is_valid_voice_name(const std::string& name);

struct ExportSummary {
  std::string name;         // the voice folder's name, which the archive installs as
  std::size_t files = 0;    // files in the archive, the manifest aside
  std::uint64_t bytes = 0;  // their bytes, uncompressed
  std::uint64_t archive_bytes = 0;
};

// Writes the voice in `voice_folder` to `archive` (written to a temporary name beside it and
// renamed). The voice is loaded first (engine::Voice::load), so a broken voice is never exported.
// Throws engine::VoiceError for a voice that does not load, ArchiveError for a folder holding
// something other than regular files and folders (a device, a FIFO, a link out of nothing), or
// std::runtime_error on I/O failure.
ExportSummary export_voice(const std::filesystem::path& voice_folder,
                           const std::filesystem::path& archive);

struct InstallOptions {
  std::filesystem::path target;  // the voice folder to install into; made when missing
  bool force = false;            // replace a voice of the same name
};

// Installs `source`, a .ttsvoice archive or a voice folder, as TARGET/NAME, and returns that
// folder. Throws ArchiveError when the archive or folder is refused, engine::VoiceError when the
// unpacked voice does not load, std::runtime_error when the voice exists (without `force`) or on
// I/O failure; after any failure the target folder holds what it held before.
std::filesystem::path install_voice(const std::filesystem::path& source,
                                    const InstallOptions& options);

// Removes the voice `name` from the voice folder `target` (a link there is removed, never what it
// points at). Throws std::runtime_error when there is no such voice in `target`, naming where a
// voice of that name is on the search path and how to remove it, and on I/O failure.
void remove_voice(const std::string& name, const std::filesystem::path& target);

// The user's voice folder ($XDG_DATA_HOME/tts/voices, or ~/.local/share/tts/voices): where
// install and remove act by default. Throws std::runtime_error when neither variable is set.
std::filesystem::path user_voice_folder();

// The installed voices folder (<prefix>/share/tts/voices, or the source tree's voices/ for a build
// run from its build tree): `--system`.
std::filesystem::path system_voice_folder();

}  // namespace tts::sharing
