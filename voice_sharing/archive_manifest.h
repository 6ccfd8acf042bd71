// ttsvoice.json, the first entry of a .ttsvoice archive: what the archive holds, each file with its
// size and CRC-32, and the versions it was made with. Private to tts_voice_sharing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tts::sharing {

struct ArchivedFile {
  std::string path;  // inside the voice folder, '/'-separated ("vocoder/vocoder.json")
  std::uint64_t bytes = 0;
  std::uint32_t crc32 = 0;
};

struct ArchiveManifest {
  std::string name;  // the voice folder's name; the files are NAME/PATH in the archive
  int voice_format_version = 0;
  std::vector<ArchivedFile> files;
};

std::string manifest_json(const ArchiveManifest& manifest);

// Parses and checks ttsvoice.json: the format, the versions (one newer than this build reads is
// refused as "made by a newer tts"), the name, every path (relative, no "." or ".." or empty
// component), no path twice, voice.json listed, at most kMaxArchiveEntries files of at most
// kMaxArchiveBytes in all. Throws ArchiveError starting with `where`.
ArchiveManifest parse_manifest(const std::string& text, const std::string& where);

// Why `path` cannot be a file's path inside a voice folder ("" when it can): absolute, empty,
// with an empty, "." or ".." component, or a backslash or control character.
std::string unsafe_path_reason(const std::string& path);

std::string hex32(std::uint32_t value);

}  // namespace tts::sharing
