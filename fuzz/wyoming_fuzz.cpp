// libFuzzer target for the Wyoming framing (serve/wyoming/wyoming_protocol.cpp): the input is fed
// to the parser whole and in small pieces (as a socket may deliver it), which must agree, and every
// event that comes out is serialised and parsed back.
//
//   clang++-14 -std=c++17 -g -O1 -fsanitize=fuzzer,address -I serve/include \
//     fuzz/wyoming_fuzz.cpp serve/wyoming/wyoming_protocol.cpp -o /tmp/wyoming_fuzz
//   /tmp/wyoming_fuzz -max_total_time=60 fuzz/corpus/wyoming
//
// Checks, besides the sanitizer's: feed never throws; the verdict, the error message and the events
// do not depend on how the bytes were split; an error is final and has a message; an event
// serialises to bytes that parse back to the same type, data and payload.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "tts/serve/wyoming_protocol.h"

using tts::serve::wyoming::Event;
using tts::serve::wyoming::EventParser;
using tts::serve::wyoming::FrameLimits;

namespace {

bool same_data(const nlohmann::json& a, const nlohmann::json& b) {
  // Equal, unless a string held bytes that are not UTF-8 (written back as U+FFFD).
  constexpr auto kReplace = nlohmann::json::error_handler_t::replace;
  return a == b || a.dump(-1, ' ', false, kReplace) == b.dump(-1, ' ', false, kReplace);
}

bool same_events(const std::vector<Event>& a, const std::vector<Event>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].type != b[i].type || a[i].payload != b[i].payload || a[i].data != b[i].data)
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* bytes = reinterpret_cast<const char*>(data);
  // Small limits, so that the fuzzer reaches them.
  const FrameLimits limits{512, 512, 4096};

  // All at once.
  EventParser whole(limits);
  std::vector<Event> events;
  bool whole_ok = whole.feed(bytes, size, events);
  if (whole_ok == whole.failed() || (!whole_ok && whole.error().empty())) std::abort();

  // In pieces of 1 to 16 bytes (sizes drawn from the input's length), as a socket may deliver
  // them: the same events and the same verdict.
  EventParser pieces(limits);
  std::vector<Event> piece_events;
  unsigned state = static_cast<unsigned>(size) * 2654435761u;
  bool pieces_ok = true;
  for (std::size_t at = 0; at < size;) {
    state = state * 1103515245u + 12345u;
    std::size_t piece = std::min<std::size_t>(1 + (state >> 16) % 16, size - at);
    pieces_ok = pieces.feed(bytes + at, piece, piece_events);
    at += piece;
  }
  if (pieces_ok != whole_ok || pieces.error() != whole.error() ||
      pieces.at_boundary() != whole.at_boundary() || !same_events(events, piece_events))
    std::abort();

  // An error is final.
  if (!whole_ok) {
    std::vector<Event> more;
    if (whole.feed("{\"type\":\"x\"}\n", 13, more) || !more.empty()) std::abort();
  }

  // Every event serialises to bytes that parse back to it.
  for (const Event& e : events) {
    if (e.type.empty() || !e.data.is_object()) std::abort();
    EventParser again(FrameLimits{1 << 20, 1 << 20, 1 << 20});
    std::vector<Event> back;
    std::string out = tts::serve::wyoming::to_bytes(e);
    if (!again.feed(out.data(), out.size(), back) || back.size() != 1) std::abort();
    if (back[0].type != e.type || back[0].payload != e.payload || !same_data(back[0].data, e.data))
      std::abort();
  }
  return 0;
}
