#include "wyoming_session.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "api_key.h"
#include "tts/audio/stream_encoder.h"
#include "tts/frontend/sentence_splitter.h"
#include "tts/frontend/utf8.h"
#include "tts/serve/wyoming_protocol.h"
#include "wyoming_info.h"
#include "wyoming_request.h"

namespace tts::serve {

using wyoming::BadEvent;
using wyoming::Event;

using After = WyomingSession::After;

namespace {

// The peer has gone (a send failed or timed out), or the server is stopping: the connection ends.
// Not a std::exception, so that no handler of synthesis errors can mistake it for one.
struct ConnectionLost {};
// A stream was cut (the server is stopping) and its `error` has been sent: the connection ends.
struct StreamCut {};

}  // namespace

// The events of one connection, in order. A synthesis runs on the worker thread that handles the
// event: events that arrive meanwhile wait in the socket (Wyoming clients send one request at a
// time anyway).
class WyomingSession::Impl {
 public:
  Impl(SpeechService& service, const WyomingOptions& options, int fd)
      : service_(service), options_(options), fd_(fd) {}

  After handle_events(const std::vector<Event>& events);
  After refuse_frame(const std::string& message);
  void interrupt();

 private:
  enum class Stream { kIdle, kOpen, kFailed };

  bool authorise(const Event& event);
  void handle(const Event& event);
  void synthesize(const Event& event);
  void stream_start(const Event& event);
  void stream_chunk(const Event& event);
  void stream_stop();
  SpeechRequest request_from(const Event& event);
  void speak(const SpeechRequest& request);
  void send(const Event& event);
  void send_bytes(const std::string& bytes);
  void send_error(const std::string& text, const std::string& code);  // best effort
  void send_audio(const float* samples, std::size_t count, int rate, std::uint64_t& offset);

  SpeechService& service_;
  const WyomingOptions& options_;
  const int fd_;
  bool authorised_ = options_.api_key.empty();
  std::mutex interrupt_mutex_;
  bool interrupted_ = false;      // under interrupt_mutex_
  SpeechJob* running_ = nullptr;  // under interrupt_mutex_: the synthesis being spoken

  // The streaming form (synthesize-start … synthesize-stop). Plain text is split into sentences
  // as the chunks arrive and each complete sentence is spoken at once, as its own audio-start …
  // audio-stop (as wyoming-piper does), so the first audio leaves while the client is still
  // sending text; what remains is spoken at synthesize-stop. SSML cannot be cut at sentences
  // before it is parsed, so it is spoken whole at synthesize-stop.
  Stream stream_ = Stream::kIdle;
  SpeechRequest stream_request_;
  frontend::SentenceSplitter splitter_;
  std::string stream_ssml_;
  int stream_groups_ = 0;  // audio-start … audio-stop groups sent in this stream
};

After WyomingSession::Impl::handle_events(const std::vector<Event>& events) {
  try {
    for (const Event& event : events) {
      if (!authorised_ && !authorise(event)) {
        service_.metrics().error(kWyomingProtocol, "unauthorised");
        send_error(
            "a valid API key is needed: send it as \"api_key\" in the data of the "
            "connection's first event",
            "unauthorized");
        return After::kLinger;
      }
      handle(event);
    }
    return After::kContinue;
  } catch (const ConnectionLost&) {
    return After::kClose;
  } catch (const StreamCut&) {
    return After::kLinger;
  }
}

After WyomingSession::Impl::refuse_frame(const std::string& message) {
  service_.metrics().error(kWyomingProtocol, "bad_frame");
  try {
    send_error(message, "bad_frame");
  } catch (const ConnectionLost&) {
    return After::kClose;
  }
  return After::kLinger;
}

void WyomingSession::Impl::interrupt() {
  std::lock_guard<std::mutex> lock(interrupt_mutex_);
  interrupted_ = true;
  if (running_) running_->cancel();
}

// Whether the event carries the server's API key (after which the connection needs it no more).
bool WyomingSession::Impl::authorise(const Event& event) {
  auto key = event.data.find("api_key");
  authorised_ = key != event.data.end() && key->is_string() &&
                key_matches(key->get<std::string>(), options_.api_key);
  return authorised_;
}

void WyomingSession::Impl::handle(const Event& event) {
  const std::string& type = event.type;
  const bool in_stream = stream_ != Stream::kIdle;
  try {
    if (type == "describe") {
      // Built at each `describe`: a reload (SIGHUP) or the studio may have added voices.
      send_bytes(wyoming::to_bytes(info_event(service_)));
    } else if (type == "ping") {
      Event pong;
      pong.type = "pong";
      pong.data = {{"text", wyoming::string_field(event.data, "text", type)}};
      send(pong);
    } else if (type == "synthesize") {
      // Inside a stream, `synthesize` is the copy of the whole text that a streaming client sends
      // for servers that do not stream: we are already speaking it from the chunks.
      if (stream_ == Stream::kIdle) synthesize(event);
    } else if (type == "synthesize-start") {
      stream_start(event);
    } else if (type == "synthesize-chunk") {
      stream_chunk(event);
    } else if (type == "synthesize-stop") {
      stream_stop();
    }
    // Anything else (audio from a client, events of other services) is not for a speech server;
    // rhasspy/wyoming servers ignore what they do not handle, and so do we.
    return;
  } catch (const ConnectionLost&) {
    throw;
  } catch (const StreamCut&) {
    throw;
  } catch (const engine::SynthesisCancelled&) {
    // Only a stopping server cancels a synthesis it has not lost the client of: say so, and end.
    try {
      send_error("the synthesis was cancelled: the server is stopping", "cancelled");
    } catch (const ConnectionLost&) {
      throw;
    }
    throw StreamCut{};
  } catch (const BadEvent& e) {
    service_.metrics().request(kWyomingProtocol);
    service_.metrics().error(kWyomingProtocol, "bad_request");
    send_error(e.what(), "bad_request");
  } catch (const RequestError& e) {  // recorded by SpeechService (start, or next's time limit)
    send_error(e.what(), "bad_request");
  } catch (const BusyError& e) {
    send_error(e.what(), "busy");
  } catch (const engine::SynthesisInputError& e) {  // recorded by SpeechJob::next
    send_error(std::string("text: ") + e.what(), "bad_input");
  } catch (const frontend::InvalidUtf8Error& e) {  // the splitter's; JSON text is UTF-8 already
    service_.metrics().error(kWyomingProtocol, "bad_input");
    send_error(std::string("text: ") + e.what(), "bad_input");
  } catch (const std::exception& e) {
    service_.metrics().error(kWyomingProtocol, "internal");
    send_error(e.what(), "internal");
  }
  // The event failed. A stream it belonged to says no more (its remaining chunks are ignored); a
  // failed synthesize-stop still ends its stream, so that a client waiting for it is answered.
  if (type == "synthesize-stop" && in_stream) {
    stream_ = Stream::kIdle;
    Event stopped;
    stopped.type = "synthesize-stopped";
    send(stopped);
  } else if (stream_ == Stream::kOpen &&
             (type == "synthesize-start" || type == "synthesize-chunk")) {
    stream_ = Stream::kFailed;
  }
}

// The request an event asks for, its voice chosen by the service's rule.
SpeechRequest WyomingSession::Impl::request_from(const Event& event) {
  return wyoming::speech_request(event,
                                 [this](const std::string& name, const std::string& language) {
                                   return service_.voice(name, language).name;
                                 });
}

void WyomingSession::Impl::synthesize(const Event& event) { speak(request_from(event)); }

void WyomingSession::Impl::stream_start(const Event& event) {
  // A new stream replaces one that was never stopped (as wyoming-piper does).
  stream_ = Stream::kFailed;  // until the voice has been checked
  stream_request_ = request_from(event);
  splitter_ = frontend::SentenceSplitter();
  stream_ssml_.clear();
  stream_groups_ = 0;
  stream_ = Stream::kOpen;
}

void WyomingSession::Impl::stream_chunk(const Event& event) {
  if (stream_ == Stream::kIdle)
    throw BadEvent("synthesize-chunk outside a stream (send synthesize-start first)");
  if (stream_ == Stream::kFailed) return;  // its error has been sent
  std::string text = request_from(event).text;
  if (stream_request_.ssml) {
    stream_ssml_ += text;
    if (count_code_points(stream_ssml_) > service_.options().max_text_chars)
      throw BadEvent("synthesize-chunk: the streamed SSML is longer than the limit of " +
                     std::to_string(service_.options().max_text_chars) + " characters");
    return;
  }
  std::vector<std::string> sentences;
  splitter_.feed(text, [&](std::string s) { sentences.push_back(std::move(s)); });
  for (auto& sentence : sentences) {
    SpeechRequest request = stream_request_;
    request.text = std::move(sentence);
    speak(request);
  }
}

void WyomingSession::Impl::stream_stop() {
  if (stream_ == Stream::kIdle)
    throw BadEvent("synthesize-stop outside a stream (send synthesize-start first)");
  if (stream_ == Stream::kOpen) {
    std::vector<std::string> texts;
    if (stream_request_.ssml) {
      if (!stream_ssml_.empty()) texts.push_back(std::move(stream_ssml_));
    } else {
      splitter_.finish([&](std::string s) { texts.push_back(std::move(s)); });
    }
    for (auto& text : texts) {
      SpeechRequest request = stream_request_;
      request.text = std::move(text);
      speak(request);
    }
  }
  stream_ = Stream::kIdle;
  Event stopped;
  stopped.type = "synthesize-stopped";
  send(stopped);
}

// Runs one synthesis and sends it as audio-start, audio-chunk…, audio-stop.
void WyomingSession::Impl::speak(const SpeechRequest& request) {
  std::unique_ptr<SpeechJob> job = service_.start(request, kWyomingProtocol);
  {
    std::lock_guard<std::mutex> lock(interrupt_mutex_);
    if (interrupted_) job->cancel();  // its next() throws SynthesisCancelled
    running_ = job.get();
  }
  struct Unregister {  // before the job is destroyed, so that interrupt() never cancels a dead one
    Impl& session;
    ~Unregister() {
      std::lock_guard<std::mutex> lock(session.interrupt_mutex_);
      session.running_ = nullptr;
    }
  } unregister{*this};

  try {
    engine::AudioChunk chunk;
    // The first chunk before audio-start: text the engine cannot say gets only an `error`.
    bool more = job->next(chunk);
    const int rate = job->sample_rate();
    Event start;
    start.type = "audio-start";
    start.data = {{"rate", rate}, {"width", 2}, {"channels", 1}, {"timestamp", 0}};
    send(start);
    std::uint64_t offset = 0;  // samples sent in this audio stream
    if (stream_ != Stream::kIdle && stream_groups_ > 0) {
      // The silence the engine puts between the sentences of one text, between streamed ones.
      std::vector<float> gap(static_cast<std::size_t>(engine::SynthesisOptions{}.sentence_silence *
                                                      static_cast<float>(rate)));
      send_audio(gap.data(), gap.size(), rate, offset);
    }
    while (more) {
      send_audio(chunk.samples.data(), chunk.samples.size(), rate, offset);
      more = job->next(chunk);
    }
    Event stop;
    stop.type = "audio-stop";
    stop.data = {{"timestamp", offset * 1000 / static_cast<std::uint64_t>(rate)}};
    send(stop);
    ++stream_groups_;
  } catch (...) {
    // The client has gone, or the stream is cut short: stop making audio now. A cut stream gets
    // no audio-stop, which would claim it complete; the error that the caller sends ends it.
    job->cancel();
    throw;
  }
}

// s16le audio-chunks of at most one second each.
void WyomingSession::Impl::send_audio(const float* samples, std::size_t count, int rate,
                                      std::uint64_t& offset) {
  const auto per_chunk = static_cast<std::size_t>(rate);
  for (std::size_t at = 0; at < count; at += per_chunk) {
    std::size_t n = std::min(per_chunk, count - at);
    Event chunk;
    chunk.type = "audio-chunk";
    chunk.data = {{"rate", rate},
                  {"width", 2},
                  {"channels", 1},
                  {"timestamp", offset * 1000 / static_cast<std::uint64_t>(rate)}};
    audio::append_s16le(chunk.payload, samples + at, n);
    send(chunk);
    offset += n;
  }
}

void WyomingSession::Impl::send(const Event& event) { send_bytes(wyoming::to_bytes(event)); }

void WyomingSession::Impl::send_bytes(const std::string& bytes) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    // MSG_NOSIGNAL: a client that has gone is an error return here, never a SIGPIPE. A client
    // that stops reading makes this time out (SO_SNDTIMEO), which ends the connection too.
    ssize_t n = ::send(fd_, p, left, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ConnectionLost{};
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void WyomingSession::Impl::send_error(const std::string& text, const std::string& code) {
  send(wyoming::error_event(text, code));
}

WyomingSession::WyomingSession(SpeechService& service, const WyomingOptions& options, int fd)
    : impl_(std::make_unique<Impl>(service, options, fd)) {}

WyomingSession::~WyomingSession() = default;

After WyomingSession::handle(const std::vector<Event>& events) {
  return impl_->handle_events(events);
}

After WyomingSession::refuse_frame(const std::string& message) {
  return impl_->refuse_frame(message);
}

void WyomingSession::interrupt() { impl_->interrupt(); }

}  // namespace tts::serve
