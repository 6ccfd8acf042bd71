#include "tts/serve/wyoming_protocol.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace tts::serve::wyoming {

using nlohmann::json;

namespace {

// nlohmann's messages start with "[json.exception.parse_error.101] "; the rest says where and why.
std::string json_message(const std::exception& e) {
  std::string message = e.what();
  if (!message.empty() && message.front() == '[') {
    auto end = message.find("] ");
    if (end != std::string::npos) message.erase(0, end + 2);
  }
  return message;
}

// A length field of the header: absent or null is 0; anything but a non-negative integer within
// `limit` is an error (a float such as 5.0 too: the sender meant something we cannot read).
bool read_length(const json& header, const char* name, std::size_t limit, std::size_t& length,
                 std::string& error) {
  length = 0;
  auto it = header.find(name);
  if (it == header.end() || it->is_null()) return true;
  if (it->is_number_unsigned()) {
    auto value = it->get<std::uint64_t>();
    if (value > limit) {
      error = std::string(name) + " " + std::to_string(value) + " is more than the limit of " +
              std::to_string(limit) + " bytes";
      return false;
    }
    length = static_cast<std::size_t>(value);
    return true;
  }
  if (it->is_number_integer()) {  // signed, so negative (non-negative ones are unsigned)
    error = std::string(name) + " is negative (" + std::to_string(it->get<std::int64_t>()) + ")";
    return false;
  }
  error = std::string(name) + " is not an integer (" + std::string(it->type_name()) + ")";
  return false;
}

}  // namespace

EventParser::EventParser(FrameLimits limits) : limits_(limits) {}

void EventParser::fail(std::string message) {
  state_ = State::kFailed;
  error_ = std::move(message);
  buffer_.clear();
  buffer_.shrink_to_fit();
  event_ = {};
}

bool EventParser::feed(const char* bytes, std::size_t size, std::vector<Event>& events) {
  std::size_t at = 0;
  // Loops once more after the last byte: an event without data or payload is complete as soon as
  // its header is, and one with both lengths 0 must come out even when its '\n' was the last byte.
  while (state_ != State::kFailed) {
    if (state_ == State::kHeader) {
      if (at == size) break;
      const char* start = bytes + at;
      std::size_t available = size - at;
      const void* newline = std::memchr(start, '\n', available);
      std::size_t take = newline ? static_cast<const char*>(newline) - start : available;
      if (buffer_.size() + take > limits_.max_header_bytes) {
        fail("header line longer than the limit of " + std::to_string(limits_.max_header_bytes) +
             " bytes (or no '\\n' at its end)");
        break;
      }
      buffer_.append(start, take);
      at += take;
      if (!newline) break;
      ++at;  // the '\n'
      if (!parse_header()) break;
      if (data_length_ == 0 && payload_length_ == 0) finish_event(events);
    } else if (state_ == State::kData) {
      std::size_t take = std::min(size - at, data_length_ - buffer_.size());
      buffer_.append(bytes + at, take);
      at += take;
      if (buffer_.size() < data_length_) break;
      if (!parse_data()) break;
      if (payload_length_ == 0) finish_event(events);
    } else {  // kPayload
      std::size_t take = std::min(size - at, payload_length_ - buffer_.size());
      buffer_.append(bytes + at, take);
      at += take;
      if (buffer_.size() < payload_length_) break;
      event_.payload = std::move(buffer_);
      finish_event(events);
    }
  }
  return state_ != State::kFailed;
}

bool EventParser::parse_header() {
  json header;
  try {
    header = json::parse(buffer_);
  } catch (const json::exception& e) {
    fail("header line is not JSON: " + json_message(e));
    return false;
  }
  buffer_.clear();
  if (!header.is_object()) {
    fail(std::string("header is not a JSON object (") + header.type_name() + ")");
    return false;
  }
  auto type = header.find("type");
  if (type == header.end()) {
    fail("header has no \"type\"");
    return false;
  }
  if (!type->is_string()) {
    fail(std::string("header \"type\" is not a string (") + type->type_name() + ")");
    return false;
  }
  event_ = {};
  event_.type = type->get<std::string>();
  if (event_.type.empty()) {
    fail("header \"type\" is empty");
    return false;
  }
  auto data = header.find("data");
  if (data != header.end() && !data->is_null()) {
    if (!data->is_object()) {
      fail(std::string("header \"data\" is not a JSON object (") + data->type_name() + ")");
      return false;
    }
    event_.data = std::move(*data);  // moved, not copied: copies of deep JSON recurse
  }
  auto version = header.find("version");
  if (version != header.end() && version->is_string()) event_.version = version->get<std::string>();
  std::string error;
  if (!read_length(header, "data_length", limits_.max_data_bytes, data_length_, error) ||
      !read_length(header, "payload_length", limits_.max_payload_bytes, payload_length_, error)) {
    fail("header " + error);
    return false;
  }
  state_ = data_length_ > 0 ? State::kData : payload_length_ > 0 ? State::kPayload : State::kHeader;
  return true;
}

bool EventParser::parse_data() {
  json data;
  try {
    data = json::parse(buffer_);
  } catch (const json::exception& e) {
    fail("data section of \"" + event_.type + "\" is not JSON: " + json_message(e));
    return false;
  }
  buffer_.clear();
  if (!data.is_object()) {
    fail("data section of \"" + event_.type + "\" is not a JSON object (" + data.type_name() + ")");
    return false;
  }
  // Shallow, as the reference implementation's dict.update: a key of the data section replaces
  // the header's value of that key whole.
  for (auto it = data.begin(); it != data.end(); ++it)
    event_.data[it.key()] = std::move(it.value());
  state_ = payload_length_ > 0 ? State::kPayload : State::kHeader;
  return true;
}

void EventParser::finish_event(std::vector<Event>& events) {
  events.push_back(std::move(event_));
  event_ = {};
  buffer_.clear();
  data_length_ = payload_length_ = 0;
  state_ = State::kHeader;
}

std::string to_bytes(const Event& event) {
  // error_handler_t::replace: a voice description or an echoed text with a bad byte must not
  // make the server throw while it answers.
  constexpr auto kReplace = json::error_handler_t::replace;
  json header = {{"type", event.type}, {"version", kProtocolVersion}};
  std::string data;
  if (event.data.is_object() && !event.data.empty()) {
    data = event.data.dump(-1, ' ', false, kReplace);
    header["data_length"] = data.size();
  }
  if (!event.payload.empty()) header["payload_length"] = event.payload.size();
  std::string bytes = header.dump(-1, ' ', false, kReplace);
  bytes.reserve(bytes.size() + 1 + data.size() + event.payload.size());
  bytes += '\n';
  bytes += data;
  bytes += event.payload;
  return bytes;
}

Event error_event(const std::string& text, const std::string& code) {
  Event event;
  event.type = "error";
  event.data = {{"text", text}, {"code", code}};
  return event;
}

}  // namespace tts::serve::wyoming
