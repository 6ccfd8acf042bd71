// Fetching an index or an archive: a local file copied, or an http(s) URL downloaded with libcurl
// (certificates verified, a size cap, timeouts). Only what the user named is ever fetched.
#include <curl/curl.h>

#include <fstream>
#include <memory>
#include <mutex>

#include "tts/voice_sharing/voice_index.h"

namespace fs = std::filesystem;

namespace tts::sharing {

namespace {

constexpr long kConnectTimeoutSeconds = 30;
constexpr long kStallBytesPerSecond = 1024;
constexpr long kStallSeconds = 60;

struct Download {
  std::ofstream* out = nullptr;
  std::uint64_t received = 0;
  std::uint64_t max_bytes = 0;
  bool too_large = false;
  bool write_failed = false;
};

// libcurl's write callback: stops the transfer (by returning less than it was given) once more
// than max_bytes arrive, which catches a server that sends no Content-Length.
std::size_t write_download(char* data, std::size_t size, std::size_t count, void* user) {
  Download& d = *static_cast<Download*>(user);
  const std::size_t n = size * count;
  if (d.received + n > d.max_bytes) {
    d.too_large = true;
    return 0;
  }
  d.out->write(data, static_cast<std::streamsize>(n));
  if (!*d.out) {
    d.write_failed = true;
    return 0;
  }
  d.received += n;
  return n;
}

void start_curl() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (result != CURLE_OK)
    throw FetchError(std::string("cannot start libcurl: ") + curl_easy_strerror(result));
}

std::string bytes_text(std::uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

void download(const std::string& url, const fs::path& destination, std::uint64_t max_bytes) {
  start_curl();
  const std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(),
                                                                 &curl_easy_cleanup);
  if (!curl) throw FetchError(url + ": cannot start libcurl");
  std::ofstream out(destination, std::ios::binary | std::ios::trunc);
  if (!out) throw FetchError(url + ": cannot write " + destination.string());
  Download d;
  d.out = &out;
  d.max_bytes = max_bytes;
  char error[CURL_ERROR_SIZE] = "";
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, kConnectTimeoutSeconds);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, kStallBytesPerSecond);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, kStallSeconds);
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(max_bytes));
  curl_easy_setopt(c, CURLOPT_USERAGENT, "tts-voices");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_download);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &d);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  const CURLcode result = curl_easy_perform(c);
  out.close();
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (d.too_large || result == CURLE_FILESIZE_EXCEEDED)
    throw FetchTooLargeError(url + ": larger than the " + bytes_text(max_bytes) + " expected");
  if (d.write_failed) throw FetchError(url + ": cannot write " + destination.string());
  if (result != CURLE_OK)
    throw FetchError(url + ": " + (error[0] ? error : curl_easy_strerror(result)));
  if (status < 200 || status > 299)
    throw FetchError(url + ": HTTP status " + std::to_string(status));
  if (!out) throw FetchError(url + ": cannot write " + destination.string());
}

void copy_local(const std::string& location, const fs::path& destination, std::uint64_t max_bytes) {
  std::error_code ec;
  if (!fs::is_regular_file(location, ec)) throw FetchError(location + ": no such file");
  const std::uint64_t size = fs::file_size(location, ec);
  if (ec) throw FetchError(location + ": cannot read (" + ec.message() + ")");
  if (size > max_bytes)
    throw FetchTooLargeError(location + ": " + bytes_text(size) + ", larger than the " +
                             bytes_text(max_bytes) + " expected");
  fs::copy_file(location, destination, fs::copy_options::overwrite_existing, ec);
  if (ec)
    throw FetchError(location + ": cannot copy to " + destination.string() + " (" + ec.message() +
                     ")");
}

}  // namespace

bool is_http_url(const std::string& location) {
  return location.rfind("http://", 0) == 0 || location.rfind("https://", 0) == 0;
}

void fetch_to_file(const std::string& location, const fs::path& destination,
                   std::uint64_t max_bytes) {
  if (is_http_url(location))
    download(location, destination, max_bytes);
  else if (location.find("://") != std::string::npos)
    throw FetchError(location + ": only http:// and https:// URLs, or local files, are fetched");
  else
    copy_local(location, destination, max_bytes);
}

}  // namespace tts::sharing
