// The framing of the Wyoming protocol (rhasspy/wyoming, the protocol of Home Assistant's local
// voice services): each event is
//
//   {"type": "...", "data": {...}?, "data_length": N?, "payload_length": M?, "version": "..."?}\n
//   N bytes of UTF-8 JSON: an object whose keys are merged over the header's "data" (optional)
//   M bytes of binary payload, e.g. s16le PCM of an audio-chunk (optional)
//
// EventParser takes bytes in pieces of any size (as they come off a socket) and returns the events
// they complete. A malformed stream cannot be resynchronised (nothing marks where the next event
// starts), so the first error is final: the parser says what was wrong and takes no more bytes.
//
// Depends on nothing but the standard library and nlohmann/json, so that the fuzz target
// (fuzz/wyoming_fuzz.cpp) builds from this file alone.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tts::serve::wyoming {

// The version written in every header we send: the rhasspy/wyoming release that introduced the
// streaming synthesis events (synthesize-start/-chunk/-stop/-stopped) this server speaks.
inline constexpr const char* kProtocolVersion = "1.7.0";

struct Event {
  std::string type;
  nlohmann::json data = nlohmann::json::object();  // always an object (empty when none was sent)
  std::string payload;                             // raw bytes; empty when none was sent
  std::string version;                             // the sender's "version", if it sent a string
};

// Bounds on one event, so that a peer cannot make us buffer without limit.
struct FrameLimits {
  std::size_t max_header_bytes = 64 * 1024;  // the JSON header line, without its '\n'
  std::size_t max_data_bytes = 64 * 1024;    // data_length
  std::size_t max_payload_bytes = 1 << 20;   // payload_length
};

class EventParser {
 public:
  explicit EventParser(FrameLimits limits = {});

  // Consumes `size` bytes and appends every event they complete to `events`. Returns false once
  // the stream is malformed; error() then says why and later calls consume nothing. Never throws
  // for any input (only std::bad_alloc, which the limits make unlikely).
  bool feed(const char* bytes, std::size_t size, std::vector<Event>& events);

  bool failed() const { return state_ == State::kFailed; }
  const std::string& error() const { return error_; }
  // True between events: nothing of a next event has been read yet. A stream that ends anywhere
  // else was cut inside an event (truncated).
  bool at_boundary() const { return state_ == State::kHeader && buffer_.empty(); }

 private:
  enum class State { kHeader, kData, kPayload, kFailed };
  void fail(std::string message);
  bool parse_header();
  bool parse_data();
  void finish_event(std::vector<Event>& events);

  FrameLimits limits_;
  State state_ = State::kHeader;
  std::string buffer_;  // the header line, data section or payload being read
  std::size_t data_length_ = 0, payload_length_ = 0;
  Event event_;  // the event being read
  std::string error_;
};

// The bytes of `event`: its header line (type, version and the lengths), then the data as its own
// section (as rhasspy/wyoming writes it, so that the header stays short), then the payload. Text
// that is not valid UTF-8 is written with U+FFFD in place of the bad bytes. Never throws but
// std::bad_alloc.
std::string to_bytes(const Event& event);

// An `error` event: {"text": text, "code": code}.
Event error_event(const std::string& text, const std::string& code);

}  // namespace tts::serve::wyoming
