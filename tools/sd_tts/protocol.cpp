#include "protocol.h"

#include <cstdio>

namespace tts::speechd {
namespace {

std::string one_line(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return out;
}

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) words.emplace_back(line.substr(start, i - start));
  }
  return words;
}

}  // namespace

Step Parser::feed(std::string_view line) {
  Step step;
  if (state_ == State::kData) {
    if (line == ".") {
      state_ = State::kCommand;
      Request request = std::move(pending_);
      pending_ = Request{};
      if (!request.text.empty()) request.text.pop_back();  // the newline of the last line
      if (request.text.empty() && data_lines_ <= 1) {
        step.replies.emplace_back(kReplyCantSpeak);
        return step;
      }
      if (request.kind != Request::Kind::kSpeak && data_lines_ > 1) {
        step.replies.emplace_back("305 DATA MORE THAN ONE LINE");
        return step;
      }
      if (request.kind == Request::Kind::kChar && request.text == "space") request.text = " ";
      step.request = std::move(request);
      return step;
    }
    if (!line.empty() && line[0] == '.') line.remove_prefix(1);  // "..x" was ".x"
    ++data_lines_;
    pending_.text.append(line);
    pending_.text.push_back('\n');
    return step;
  }

  if (state_ == State::kSettings) {
    if (line == ".") {
      state_ = State::kCommand;
      Request request = std::move(pending_);
      pending_ = Request{};
      if (!settings_error_.empty()) {
        step.replies.push_back(std::move(settings_error_));
        settings_error_.clear();
        return step;
      }
      step.request = std::move(request);
      return step;
    }
    std::size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == line.size()) {
      if (settings_error_.empty()) settings_error_ = kReplyBadSyntax;
      return step;
    }
    pending_.settings.emplace_back(std::string(line.substr(0, eq)),
                                   std::string(line.substr(eq + 1)));
    return step;
  }

  auto begin_data = [&](Request::Kind kind) {
    state_ = State::kData;
    pending_ = Request{};
    pending_.kind = kind;
    data_lines_ = 0;
    step.replies.emplace_back("202 OK RECEIVING MESSAGE");
  };
  auto begin_settings = [&](Request::Kind kind, const char* ack) {
    state_ = State::kSettings;
    pending_ = Request{};
    pending_.kind = kind;
    settings_error_.clear();
    step.replies.emplace_back(ack);
  };
  auto simple = [&](Request::Kind kind) {
    Request request;
    request.kind = kind;
    step.request = std::move(request);
  };

  if (line == "SPEAK") {
    begin_data(Request::Kind::kSpeak);
  } else if (line == "CHAR") {
    begin_data(Request::Kind::kChar);
  } else if (line == "KEY") {
    begin_data(Request::Kind::kKey);
  } else if (line == "SOUND_ICON") {
    begin_data(Request::Kind::kSoundIcon);
  } else if (line == "SET") {
    begin_settings(Request::Kind::kSet, "203 OK RECEIVING SETTINGS");
  } else if (line == "AUDIO") {
    begin_settings(Request::Kind::kAudio, "207 OK RECEIVING AUDIO SETTINGS");
  } else if (line == "LOGLEVEL") {
    begin_settings(Request::Kind::kLogLevel, "207 OK RECEIVING LOGLEVEL SETTINGS");
  } else if (line == "INIT") {
    simple(Request::Kind::kInit);
  } else if (line == "STOP") {
    simple(Request::Kind::kStop);
  } else if (line == "PAUSE") {
    simple(Request::Kind::kPause);
  } else if (line == "LIST VOICES") {
    simple(Request::Kind::kListVoices);
  } else if (line == "QUIT") {
    simple(Request::Kind::kQuit);
  } else if (line.substr(0, 5) == "DEBUG") {
    // "DEBUG ON /some/file " (the server adds a space) or "DEBUG OFF ".
    std::vector<std::string> words = split_words(line);
    Request request;
    request.kind = Request::Kind::kDebug;
    if (words.size() >= 2 && words[0] == "DEBUG" && words[1] == "ON" && words.size() >= 3) {
      request.debug_on = true;
      request.debug_file = words[2];
      step.request = std::move(request);
    } else if (words.size() >= 2 && words[0] == "DEBUG" && words[1] == "OFF") {
      step.request = std::move(request);
    } else {
      step.replies.emplace_back(kReplyBadSyntax);
    }
  } else {
    step.replies.emplace_back(kReplyUnknown);
  }
  return step;
}

std::string format_init_reply(bool ok, std::string_view message) {
  std::string text = one_line(message);
  if (ok) return "299-" + text + "\n299 OK LOADED SUCCESSFULLY\n";
  return "399-" + text + "\n399 ERR CANT INIT MODULE\n";
}

std::string format_voice_list(const std::vector<VoiceEntry>& voices) {
  std::string out;
  for (const VoiceEntry& voice : voices) {
    if (voice.name.empty()) continue;
    out += "200-" + one_line(voice.name) + "\t" +
           one_line(voice.language.empty() ? "none" : voice.language) + "\t" +
           one_line(voice.variant.empty() ? "none" : voice.variant) + "\n";
  }
  if (out.empty()) return "304 CANT LIST VOICES\n";
  return out + "200 OK VOICE LIST SENT\n";
}

std::string format_index_mark(std::string_view name) {
  return "700-" + one_line(name) + "\n700 INDEX MARK\n";
}

std::string format_icon(std::string_view name) { return "706-" + one_line(name) + "\n706 ICON\n"; }

std::string format_audio(const std::int16_t* samples, std::size_t count, int sample_rate) {
  std::string out;
  out.reserve(count * 2 + count / 64 + 128);
  char header[160];
  std::snprintf(header, sizeof header,
                "705-bits=16\n705-num_channels=1\n705-sample_rate=%d\n705-num_samples=%zu\n"
                "705-big_endian=0\n705-AUDIO",
                sample_rate, count);
  out += header;
  out.push_back('\0');
  constexpr unsigned char kEscape = 0x7d, kInvert = 1 << 5;
  for (std::size_t i = 0; i < count; ++i) {
    auto value = static_cast<std::uint16_t>(samples[i]);
    const unsigned char bytes[2] = {static_cast<unsigned char>(value & 0xff),
                                    static_cast<unsigned char>(value >> 8)};
    for (unsigned char byte : bytes) {
      if (byte == '\n' || byte == kEscape) {
        out.push_back(static_cast<char>(kEscape));
        out.push_back(static_cast<char>(byte ^ kInvert));
      } else {
        out.push_back(static_cast<char>(byte));
      }
    }
  }
  out += "\n705 AUDIO\n";
  return out;
}

std::optional<std::vector<std::uint8_t>> unescape_audio(std::string_view escaped) {
  static constexpr std::string_view kStart("705-AUDIO\0", 10);
  std::size_t at = escaped.find(kStart);
  if (at == std::string_view::npos) return std::nullopt;
  escaped.remove_prefix(at + kStart.size());
  std::size_t end = escaped.find('\n');
  if (end == std::string_view::npos) return std::nullopt;
  escaped = escaped.substr(0, end);
  std::vector<std::uint8_t> bytes;
  bytes.reserve(escaped.size());
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    auto byte = static_cast<unsigned char>(escaped[i]);
    if (byte == 0x7d) {
      if (++i == escaped.size()) return std::nullopt;
      bytes.push_back(static_cast<unsigned char>(escaped[i]) ^ (1 << 5));
    } else {
      bytes.push_back(byte);
    }
  }
  return bytes;
}

}  // namespace tts::speechd
