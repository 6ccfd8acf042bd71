#include "tts/serve/http_server.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "api_key.h"
#include "http_connections.h"
#include "http_request_stream.h"
#include "http_routes.h"
#include "http_speech.h"
#include "studio/studio_page.h"
#include "studio/studio_routes.h"
#include "tcp_listener.h"
#include "tts/audio/stream_encoder.h"
#include "tts/serve/openai_speech.h"
#include "tts/serve/web_page.h"
// Last: through <resolv.h> it defines a macro `_res`, a parameter name in Eigen's headers.
#include <httplib.h>

namespace tts::serve {

using http::send_error;
using nlohmann::json;

namespace {

// cpp-httplib's accepting loop hands each connection to its task queue as a task that calls
// Server::process_and_close_socket; this queue runs it at once, and HttpServer::Impl's override of
// that function gives the connection to the front instead of reading it on a thread of its own.
class AdoptingQueue : public httplib::TaskQueue {
 public:
  explicit AdoptingQueue(http::Connections& connections) : connections_(connections) {}
  void enqueue(std::function<void()> task) override { task(); }
  void shutdown() override { connections_.stop(); }

 private:
  http::Connections& connections_;
};

http::ConnectionLimits limits_of(const HttpOptions& o) {
  http::ConnectionLimits limits;
  limits.max_connections = o.max_connections;
  limits.read_timeout = o.read_timeout;
  limits.keep_alive_timeout = o.keep_alive_timeout;
  limits.keep_alive_max = o.keep_alive_max;
  limits.long_threads = o.connection_threads;
  limits.framing.max_head_bytes = o.max_header_bytes;
  limits.framing.max_body_bytes = o.studio.dir.empty()
                                      ? o.max_body_bytes
                                      : std::max(o.max_body_bytes, o.studio.max_take_bytes());
  return limits;
}

}  // namespace

struct HttpServer::Impl : httplib::Server {
  Impl(const HttpOptions& options, Metrics& metrics)
      : write_timeout(options.write_timeout),
        connections(
            limits_of(options),
            [this](int fd, std::string_view request, bool last) {
              return serve(fd, request, last);
            },
            [](const http::Framing& f) {
              return f.method == "POST" && f.path == "/v1/audio/speech";
            },
            [&metrics](const char* reason) { metrics.error("http", reason); }) {
    new_task_queue = [this] { return new AdoptingQueue(connections); };
  }

  // Answers one whole request; whether the connection may stay open.
  bool serve(int fd, std::string_view request, bool last) {
    try {
      http::RequestStream stream(fd, request, write_timeout);
      bool closed = false;
      bool ok = process_request(stream, last, closed, nullptr);
      return ok && !closed;
    } catch (const std::exception&) {
      return false;
    }
  }

  // Listens on a socket bound here rather than by cpp-httplib, which sets SO_REUSEPORT (a second
  // server on the port would start and share its connections) and says nothing of why a bind
  // failed; and with a deeper backlog than the 5 Debian's build compiles in, so that a burst of
  // connections waits in the kernel for the front rather than being dropped and retried.
  int listen_on(const std::string& host, int port) {
    ListeningSocket socket = open_listening_socket(host, port, 512, false);
    svr_sock_ = socket.fd;
    return socket.port;
  }

  std::chrono::milliseconds write_timeout;
  http::Connections connections;

 private:
  bool process_and_close_socket(socket_t sock) override {
    connections.adopt(sock);
    return true;
  }
};

HttpServer::HttpServer(SpeechService& service, HttpOptions options)
    : service_(service), options_(std::move(options)) {
  if (options_.connection_threads < 1)
    throw std::invalid_argument("connection threads must be ≥ 1");
  server_ = std::make_unique<Impl>(options_, service_.metrics());
  server_->set_payload_max_length(limits_of(options_).framing.max_body_bytes);
  server_->set_read_timeout(options_.read_timeout);
  server_->set_write_timeout(options_.write_timeout);
  // Only what the Keep-Alive response header says: the front enforces both.
  server_->set_keep_alive_timeout(
      std::max<time_t>(1, static_cast<time_t>((options_.keep_alive_timeout.count() + 999) / 1000)));
  server_->set_keep_alive_max_count(static_cast<std::size_t>(options_.keep_alive_max));
  routes();
  if (!options_.studio.dir.empty()) {
    studio_ = std::make_unique<Studio>(options_.studio, service_);
    add_studio_routes(*server_, *studio_);
  }
}

HttpServer::~HttpServer() {
  stop();
  studio_.reset();  // a running voice job is cancelled
}

void HttpServer::bind() { port_ = server_->listen_on(options_.host, options_.port); }

void HttpServer::run() { server_->listen_after_bind(); }

void HttpServer::stop() {
  if (server_) server_->stop();
}

void HttpServer::routes() {
  auto& svr = *server_;

  svr.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (const char* allow = http::allowed_methods(req.path);
        allow && !http::method_allowed(allow, req.method)) {
      res.set_header("Allow", allow);
      send_error(res, 405, req.method + " is not served on " + req.path + " (use " + allow + ")",
                 "invalid_request_error");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (options_.api_key.empty() || req.path == "/health" || req.path == "/" ||  // no secret there
        req.path == "/studio.js" ||
        bearer_matches(req.get_header_value("Authorization"), options_.api_key))
      return httplib::Server::HandlerResponse::Unhandled;
    service_.metrics().error("http", "unauthorised");
    res.set_header("WWW-Authenticate", "Bearer");
    send_error(res, 401, "a valid API key is needed (Authorization: Bearer KEY)",
               "invalid_request_error");
    return httplib::Server::HandlerResponse::Handled;
  });

  // The body is read here, not by cpp-httplib's form handling, so that its only limit is
  // --max-body whatever the Content-Type says (curl -d sends JSON as a form).
  svr.Post("/v1/audio/speech", [this](const httplib::Request& req, httplib::Response& res,
                                      const httplib::ContentReader& read) {
    if (req.is_multipart_form_data()) {
      send_error(res, 415, "send the request as a JSON body (application/json), not a form",
                 "invalid_request_error");
      return;
    }
    std::string body;
    if (!read([&](const char* data, std::size_t n) {
          body.append(data, n);
          return true;
        })) {
      if (res.status == -1) res.status = 400;
      return;
    }
    if (body.size() > options_.max_body_bytes) {  // the limit is higher for the studio's takes
      send_error(res, 413, "the request body is too large", "invalid_request_error");
      return;
    }
    http::answer_speech(service_, body, res);
  });

  svr.Get("/v1/audio/voices", [this](const httplib::Request&, httplib::Response& res) {
    json voices = json::array();
    for (const auto& v : service_.voices()) {
      const auto& info = v.voice->info();
      voices.push_back({{"id", v.name},
                        {"name", v.name},
                        {"language", info.language},
                        {"languages", info.languages},
                        {"speaker", info.speaker},
                        {"sex", info.sex},
                        {"licence", info.licence},
                        {"sample_rate", info.sample_rate},
                        {"description", info.description},
                        {"pitch", v.voice->can_shift_pitch()}});
    }
    int rate = service_.voices().front().voice->sample_rate();
    res.set_content(json{{"voices", voices}, {"formats", audio::stream_formats(rate)}}.dump(
                        -1, ' ', false, json::error_handler_t::replace),
                    "application/json");
  });

  svr.Get("/", [](const httplib::Request&, httplib::Response& res) { serve_web_page(res); });
  svr.Get("/studio.js",
          [](const httplib::Request&, httplib::Response& res) { serve_studio_script(res); });

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
                 {"queue", a.queue()},
                 {"studio", studio_ != nullptr}};
    res.status = draining_ ? 503 : 200;
    res.set_content(body.dump(), "application/json");
  });

  svr.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(service_.metrics().prometheus(service_.admission()),
                    "text/plain; version=0.0.4");
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
