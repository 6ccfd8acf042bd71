// libFuzzer target for the HTTP request framing of `tts serve`'s connection front
// (serve/http/http_framing.cpp): where a request ends, or why it is refused, in the bytes a
// connection has sent so far.
//
//   clang++-14 -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -I engine/include \
//     fuzz/http_framing_fuzz.cpp serve/http/http_framing.cpp -o /tmp/http_framing_fuzz
//   /tmp/http_framing_fuzz -max_total_time=60 fuzz/corpus/http_framing
//
// Checks, besides the sanitizers': framing never throws; a refusal has a status the front can
// answer and a message; a complete request lies inside the bytes and frames alike on its own
// bytes; and the bytes fed in pieces, framed only when the front would (at `wanted` bytes or a
// new line end), reach the same verdict as the whole.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "../serve/http/http_framing.h"

using tts::serve::http::frame_request;
using tts::serve::http::Framing;
using tts::serve::http::FramingLimits;

namespace {

void check_refusal(const Framing& f) {
  if (f.state != Framing::State::kRefused) return;
  if (f.message.empty()) std::abort();
  if (f.status != 400 && f.status != 413 && f.status != 431 && f.status != 501) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // Small limits, so that the fuzzer reaches them.
  const FramingLimits limits{256, 512};

  const Framing whole = frame_request(bytes, limits);
  check_refusal(whole);
  if (whole.state == Framing::State::kComplete) {
    if (whole.length == 0 || whole.length > size) std::abort();
    const Framing alone = frame_request(bytes.substr(0, whole.length), limits);
    if (alone.state != Framing::State::kComplete || alone.length != whole.length ||
        alone.method != whole.method || alone.path != whole.path)
      std::abort();
  }

  // As the front reads: pieces of 1 to 16 bytes (sizes drawn from the input's length), framed
  // again once the bytes reach `wanted` or a piece brings a line end.
  unsigned state = static_cast<unsigned>(size) * 2654435761u;
  std::size_t wanted = 0;
  for (std::size_t at = 0; at < size;) {
    state = state * 1103515245u + 12345u;
    std::size_t n = std::min<std::size_t>(1 + (state >> 16) % 16, size - at);
    bool line_end = bytes.substr(at, n).find('\n') != std::string_view::npos;
    at += n;
    if (!line_end && at < wanted) continue;
    const Framing f = frame_request(bytes.substr(0, at), limits);
    check_refusal(f);
    if (f.state == Framing::State::kIncomplete) {
      wanted = f.wanted;
      continue;
    }
    // A verdict on a prefix stands for the whole: more bytes never make a request that was
    // complete end elsewhere, nor one that was refused acceptable.
    if (f.state != whole.state) std::abort();
    if (f.state == Framing::State::kComplete && f.length != whole.length) std::abort();
    if (f.state == Framing::State::kRefused && f.status != whole.status) std::abort();
    break;
  }
  return 0;
}
