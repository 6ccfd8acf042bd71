// `tts voices install NAME --index FILE|URL` and `tts voices available`: reading an index, finding
// a voice in it, fetching its archive to a scratch folder and comparing its size and SHA-256 with
// the index's before install_voice checks and installs it.
#include <curl/curl.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "archive_voice_info.h"
#include "scratch_folder.h"
#include "tts/voice_sharing/voice_index.h"

namespace fs = std::filesystem;

namespace tts::sharing {

namespace {

std::string read_whole_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw FetchError(file.string() + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `relative` resolved against `base` as a browser resolves a link (RFC 3986), by libcurl.
std::string resolve_url(const std::string& base, const std::string& relative) {
  const std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> url(curl_url(), &curl_url_cleanup);
  if (!url || curl_url_set(url.get(), CURLUPART_URL, base.c_str(), 0) != CURLUE_OK)
    throw IndexError(base + ": not a URL");
  if (curl_url_set(url.get(), CURLUPART_URL, relative.c_str(), 0) != CURLUE_OK)
    throw IndexError(base + ": \"" + relative + "\" is not a URL relative to it");
  char* text = nullptr;
  if (curl_url_get(url.get(), CURLUPART_URL, &text, 0) != CURLUE_OK)
    throw IndexError(base + ": cannot resolve \"" + relative + "\"");
  const std::string resolved = text;
  curl_free(text);
  return resolved;
}

std::string percent_decoded(const std::string& text) {
  int length = 0;
  const std::unique_ptr<char, decltype(&curl_free)> decoded(
      curl_easy_unescape(nullptr, text.c_str(), static_cast<int>(text.size()), &length),
      &curl_free);
  if (!decoded) throw IndexError("cannot percent-decode \"" + text + "\"");
  return std::string(decoded.get(), static_cast<std::size_t>(length));
}

std::string offered_names(const VoiceIndex& index) {
  if (index.voices.empty()) return "it offers no voices";
  std::string names = "it offers";
  for (std::size_t i = 0; i < index.voices.size(); ++i)
    names += (i ? ", " : " ") + index.voices[i].name;
  return names;
}

}  // namespace

VoiceIndex read_index(const std::string& location) {
  if (is_http_url(location)) {
    const ScratchFolder scratch;
    fetch_to_file(location, scratch.path() / "voices.json", kMaxIndexBytes);
    return parse_index(read_whole_file(scratch.path() / "voices.json"), location);
  }
  std::error_code ec;
  if (!fs::is_regular_file(location, ec)) throw FetchError(location + ": no such file");
  if (fs::file_size(location, ec) > kMaxIndexBytes)
    throw FetchTooLargeError(location + ": larger than the " +
                             std::to_string(kMaxIndexBytes >> 20) + " MiB an index may be");
  return parse_index(read_whole_file(location), location);
}

std::string archive_location(const std::string& index_location, const IndexedVoice& voice) {
  if (is_http_url(voice.url)) return voice.url;
  if (voice.url.find("://") != std::string::npos)
    throw IndexError(index_location + ": voice \"" + voice.name + "\": \"url\" " + voice.url +
                     " is neither http(s) nor relative to the index");
  if (is_http_url(index_location)) return resolve_url(index_location, voice.url);
  return (fs::path(index_location).parent_path() / percent_decoded(voice.url)).string();
}

fs::path install_from_index(const std::string& name, const std::string& index_location,
                            const InstallOptions& options) {
  const VoiceIndex index = read_index(index_location);
  const IndexedVoice* voice = nullptr;
  for (const IndexedVoice& v : index.voices)
    if (v.name == name) voice = &v;
  if (!voice)
    throw IndexError(index_location + ": no voice \"" + name + "\"; " + offered_names(index));
  const std::string where = index_location + ": voice \"" + name + "\": ";
  const std::string location = archive_location(index_location, *voice);
  const ScratchFolder scratch;
  const fs::path archive = scratch.path() / (name + kArchiveExtension);
  try {
    fetch_to_file(location, archive, voice->bytes);
  } catch (const FetchTooLargeError&) {
    throw ArchiveError(where + location + ": size mismatch: more than the " +
                       std::to_string(voice->bytes) + " bytes the index says");
  } catch (const FetchError& e) {
    throw FetchError(where + e.what());
  }
  const std::uint64_t bytes = fs::file_size(archive);
  if (bytes != voice->bytes)
    throw ArchiveError(where + location + ": size mismatch: " + std::to_string(bytes) +
                       " bytes, the index says " + std::to_string(voice->bytes));
  const std::string sha256 = sha256_of_file(archive);
  if (sha256 != voice->sha256)
    throw ArchiveError(where + location + ": checksum mismatch: SHA-256 " + sha256 +
                       ", the index says " + voice->sha256 +
                       " (the archive was damaged or changed after the index was made)");
  // The archive's own messages name the scratch copy; these name where it came from.
  std::string holds;
  try {
    holds = read_archived_voice_info(archive).name;
  } catch (const ArchiveError& e) {
    throw ArchiveError(where + location + ": " + e.what());
  }
  if (holds != name)
    throw ArchiveError(where + location + ": the archive holds voice \"" + holds + "\", not \"" +
                       name + "\"");
  try {
    return install_voice(archive, options);
  } catch (const ArchiveError& e) {
    throw ArchiveError(where + location + ": " + e.what());
  }
}

}  // namespace tts::sharing
