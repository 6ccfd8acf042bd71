#include "tts/serve/http_server.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tts/audio/audio_file.h"
#include "tts/audio/stream_encoder.h"
#include "tts/serve/openai_speech.h"
// Last: through <resolv.h> it defines a macro `_res`, a parameter name in Eigen's headers.
#include <httplib.h>

namespace tts::serve {

using nlohmann::json;

namespace {

void send_error(httplib::Response& res, int status, const std::string& message,
                const std::string& type) {
  res.status = status;
  res.set_content(openai_error_json(message, type), "application/json");
}

// What a streamed response needs between the provider's calls: the synthesis, the encoder, and
// the first chunk (pulled before the status line is sent, so that text the engine cannot say
// still gets a 400).
struct SpeechStream {
  std::unique_ptr<SpeechJob> job;
  std::unique_ptr<audio::StreamEncoder> encoder;
  engine::AudioChunk first;
  bool first_pending = true;
};

// Writes the stream's next piece; false ends the response without its final chunk, which a
// client reads as a truncated transfer (a mid-stream failure cannot change the status any more).
bool provide(SpeechStream& s, httplib::DataSink& sink) {
  try {
    std::string bytes;
    bool done = false;
    if (s.first_pending) {
      s.first_pending = false;
      bytes = s.encoder->encode(s.first.samples.data(), s.first.samples.size());
      s.first = {};
    } else {
      engine::AudioChunk chunk;
      if (s.job->next(chunk)) {
        bytes = s.encoder->encode(chunk.samples.data(), chunk.samples.size());
      } else {
        bytes = s.encoder->finish();
        done = true;
      }
    }
    if (!bytes.empty() && !sink.write(bytes.data(), bytes.size())) {
      s.job->cancel();  // the client has gone: stop making audio for it now
      return false;
    }
    if (done) sink.done();
    return true;
  } catch (const std::exception&) {
    s.job->cancel();
    return false;
  }
}

}  // namespace

HttpServer::HttpServer(SpeechService& service, HttpOptions options)
    : service_(service),
      options_(std::move(options)),
      server_(std::make_unique<httplib::Server>()) {
  if (options_.connection_threads < 1)
    throw std::invalid_argument("connection threads must be ≥ 1");
  int threads = options_.connection_threads;
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->set_payload_max_length(options_.max_body_bytes);
  server_->set_read_timeout(options_.read_timeout);
  server_->set_write_timeout(options_.write_timeout);
  server_->set_keep_alive_timeout(5);
  routes();
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::bind() {
  if (options_.port == 0) {
    port_ = server_->bind_to_any_port(options_.host);
    if (port_ <= 0) throw std::runtime_error("cannot listen on " + options_.host + " (any port)");
  } else {
    if (!server_->bind_to_port(options_.host, options_.port))
      throw std::runtime_error("cannot listen on " + options_.host + ":" +
                               std::to_string(options_.port) + " (in use, or not this machine's)");
    port_ = options_.port;
  }
}

void HttpServer::run() { server_->listen_after_bind(); }

void HttpServer::stop() {
  if (server_) server_->stop();
}

void HttpServer::routes() {
  auto& svr = *server_;

  svr.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (options_.api_key.empty() || req.path == "/health")
      return httplib::Server::HandlerResponse::Unhandled;
    if (req.get_header_value("Authorization") == "Bearer " + options_.api_key)
      return httplib::Server::HandlerResponse::Unhandled;
    service_.metrics().error("http", "unauthorised");
    send_error(res, 401, "a valid API key is needed (Authorization: Bearer KEY)",
               "invalid_request_error");
    return httplib::Server::HandlerResponse::Handled;
  });

  svr.Post("/v1/audio/speech", [this](const httplib::Request& req, httplib::Response& res) {
    OpenAiSpeech speech;
    auto stream = std::make_shared<SpeechStream>();
    bool started = false;  // start() counts its own request and errors
    try {
      speech = parse_openai_speech(req.body);
      // By name alone: OpenAI's speech body has no language. A body with one would choose through
      // service_.voice(name, language), as Wyoming does, and pass the chosen voice's name on.
      const ServedVoice& voice = service_.voice(speech.request.voice);
      try {
        stream->encoder = audio::make_stream_encoder(speech.format, voice.voice->sample_rate());
      } catch (const audio::AudioError& e) {
        throw RequestError(std::string("response_format: ") + e.what());
      }
      started = true;
      stream->job = service_.start(speech.request, "http");
      bool more = stream->job->next(stream->first);
      if (!more) {  // nothing to say (only punctuation, say): a valid empty file
        res.set_content(stream->encoder->finish(), stream->encoder->mime_type());
        return;
      }
    } catch (const RequestError& e) {
      if (!started) {
        service_.metrics().request("http");
        service_.metrics().error("http", "bad_request");
      }
      send_error(res, 400, e.what(), "invalid_request_error");
      return;
    } catch (const engine::SynthesisInputError& e) {
      send_error(res, 400, std::string("input: ") + e.what(), "invalid_request_error");
      return;
    } catch (const BusyError& e) {
      res.set_header("Retry-After", "1");
      send_error(res, 503, e.what(), "server_busy");
      return;
    } catch (const std::exception& e) {
      service_.metrics().error("http", "internal");
      send_error(res, 500, e.what(), "server_error");
      return;
    }
    std::string mime = stream->encoder->mime_type();
    res.set_chunked_content_provider(
        mime, [stream](std::size_t, httplib::DataSink& sink) { return provide(*stream, sink); },
        [stream](bool) { stream->job.reset(); });
  });

  svr.Get("/v1/audio/voices", [this](const httplib::Request&, httplib::Response& res) {
    json voices = json::array();
    for (const auto& v : service_.voices()) {
      const auto& info = v.voice->info();
      voices.push_back({{"id", v.name},
                        {"name", v.name},
                        {"language", info.language},
                        {"languages", info.languages},
                        {"sample_rate", info.sample_rate},
                        {"description", info.description},
                        {"pitch", v.voice->can_shift_pitch()}});
    }
    int rate = service_.voices().front().voice->sample_rate();
    res.set_content(json{{"voices", voices}, {"formats", audio::stream_formats(rate)}}.dump(
                        -1, ' ', false, json::error_handler_t::replace),
                    "application/json");
  });

  svr.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    json data = json::array();
    auto model = [&](const std::string& id) {
      data.push_back({{"id", id}, {"object", "model"}, {"created", 0}, {"owned_by", "tts"}});
    };
    model("tts-1");
    model("tts-1-hd");
    for (const auto& v : service_.voices()) model(v.name);
    res.set_content(json{{"object", "list"}, {"data", data}}.dump(), "application/json");
  });

  svr.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    const auto& a = service_.admission();
    json body = {{"status", draining_ ? "stopping" : "ok"},
                 {"voices", service_.voices().size()},
                 {"running", a.running()},
                 {"waiting", a.waiting()},
                 {"workers", a.workers()},
                 {"queue", a.queue()}};
    res.status = draining_ ? 503 : 200;
    res.set_content(body.dump(), "application/json");
  });

  svr.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(service_.metrics().prometheus(service_.admission()),
                    "text/plain; version=0.0.4");
  });

  for (const char* path : {"/v1/audio/speech"})
    svr.Get(path, [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Allow", "POST");
      send_error(res, 405, "use POST for this path", "invalid_request_error");
    });
  for (const char* path : {"/v1/audio/voices", "/v1/models", "/health", "/metrics"})
    svr.Post(path, [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Allow", "GET");
      send_error(res, 405, "use GET for this path", "invalid_request_error");
    });

  svr.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404)
      send_error(res, 404, "no such path: " + req.path, "invalid_request_error");
    else if (res.status == 413)
      send_error(res, 413, "the request body is too large", "invalid_request_error");
    else
      send_error(res, res.status, "bad request", "invalid_request_error");
  });

  svr.set_exception_handler(
      [this](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        service_.metrics().error("http", "internal");
        send_error(res, 500, "internal error", "server_error");
      });
}

}  // namespace tts::serve
