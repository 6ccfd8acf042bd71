// A voices.json index: the voices a folder or a web site offers as .ttsvoice archives, each with
// its languages, size, SHA-256 and URL (docs/voice-format.md, "A voice index"). `tts voices index`
// writes one, `tts voices available` lists one, and `tts voices install NAME --index FILE|URL`
// installs from one: the archive is fetched to a temporary file, its size and SHA-256 compared
// with the index's, and only then installed as any archive is (install_voice). Nothing is fetched
// over the network unless the user names an http:// or https:// index.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "tts/voice_sharing/voice_archive.h"

namespace tts::sharing {

inline constexpr const char* kIndexFormat = "tts-voice-index";
inline constexpr int kIndexFormatVersion = 1;
// An index lists a few hundred voices at most: far less JSON than this.
inline constexpr std::uint64_t kMaxIndexBytes = 16ull << 20;

// An index that is malformed, of a newer format, or does not offer the voice asked for. The
// message names the index and the problem.
class IndexError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file or URL that could not be fetched (missing, HTTP status, network, too large). The message
// names the URL and what failed.
class FetchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file or URL that holds more bytes than the caller allowed; the transfer is stopped there.
class FetchTooLargeError : public FetchError {
 public:
  using FetchError::FetchError;
};

struct IndexedVoice {
  std::string name;                    // what the archive installs as
  std::vector<std::string> languages;  // BCP 47 tags, the default first
  std::string speaker;                 // "" when voice.json does not say
  std::string sex;                     // "female", "male" or ""
  std::string licence;
  std::string description;
  std::uint64_t bytes = 0;  // the archive's size
  std::string sha256;       // the archive's SHA-256, 64 lower-case hex digits
  std::string url;          // relative to the index's location, or an absolute http(s) URL
};

struct VoiceIndex {
  std::vector<IndexedVoice> voices;
};

std::string index_json(const VoiceIndex& index);

// Parses and checks an index: the format and version, every voice's fields (a valid voice name,
// no name twice, a size up to kMaxArchiveBytes, a SHA-256, a URL). Throws IndexError starting
// with `where`.
VoiceIndex parse_index(const std::string& text, const std::string& where);

// Indexes the .ttsvoice files directly in `folder`, by name: each archive's ttsvoice.json and
// voice.json give the name and the voice's details, the file its size and SHA-256. Each URL is the
// file's name, percent-encoded, after `base_url` (with a '/' added when it has none); with no
// base URL it is relative to an index written in `folder`. Throws ArchiveError for an archive that
// is not a .ttsvoice, IndexError for no archives or two of the same voice.
VoiceIndex index_archives(const std::filesystem::path& folder, const std::string& base_url = "");

// Reads the index at `location`: a local file, or an http:// or https:// URL (fetched).
VoiceIndex read_index(const std::string& location);

// Where the archive of `voice` listed in the index at `index_location` is: its URL when absolute,
// else resolved against the index's URL, or its local folder.
std::string archive_location(const std::string& index_location, const IndexedVoice& voice);

// Installs the voice `name` offered by the index at `index_location` (a file or an http(s) URL),
// as install_voice would install its archive. Throws IndexError when the index does not offer
// it (listing what it does offer), FetchError when the index or the archive cannot be fetched,
// ArchiveError when the archive's size or SHA-256 differs from the index's or it installs as
// another name, and whatever install_voice throws.
std::filesystem::path install_from_index(const std::string& name, const std::string& index_location,
                                         const InstallOptions& options);

// Copies `location` (a local file, or an http:// or https:// URL) to `destination`, refusing more
// than `max_bytes`. Over HTTP(S): redirects followed (to http(s) only), certificates verified,
// 30 s to connect, stalled transfers (under 1 KiB/s for 60 s) given up. Throws FetchError naming
// the location and what failed; FetchTooLargeError for more than `max_bytes`.
void fetch_to_file(const std::string& location, const std::filesystem::path& destination,
                   std::uint64_t max_bytes);

// Whether `location` is an http:// or https:// URL.
bool is_http_url(const std::string& location);

// The SHA-256 of a file, 64 lower-case hex digits. Throws std::runtime_error when it cannot be
// read.
std::string sha256_of_file(const std::filesystem::path& file);

}  // namespace tts::sharing
