// Where one HTTP/1.1 request ends in the bytes a connection has sent so far: the request line, the
// headers up to the blank line, then a body of Content-Length bytes or in chunks. The connection
// front (http_connections.h) reads a whole request this way, on its one polling thread, before a
// worker sees it, so that a client that sends slowly holds no worker; a request it must refuse
// (a malformed or negative Content-Length, a body over the limit, headers too long) is refused
// here, at once, before its body is read. No sockets and no state. Internal to tts_serve.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tts::serve::http {

struct FramingLimits {
  std::size_t max_head_bytes = 16 * 1024;  // request line and headers, with their line ends
  std::size_t max_body_bytes = 64 * 1024;  // the body's content (chunked: without the framing)
};

struct Framing {
  enum class State { kIncomplete, kComplete, kRefused };
  State state = State::kIncomplete;
  std::size_t length = 0;  // kComplete: the request's bytes, head and body
  int status = 0;          // kRefused: the HTTP status to answer (400, 413, 431, 501)
  std::string message;     // kRefused: what is wrong, for the client
  std::string method;      // kComplete and kRefused once the request line has arrived
  std::string path;        // the request target without its query string
  // kIncomplete: framing again cannot tell more before the bytes reach this length or another
  // line end arrives (so that a client sending a byte at a time costs no rescans).
  std::size_t wanted = 0;
};

// Frames the request at the start of `bytes`. kIncomplete: more bytes are needed (none of those
// seen is wrong yet).
Framing frame_request(std::string_view bytes, const FramingLimits& limits);

}  // namespace tts::serve::http
