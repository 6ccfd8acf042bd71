#include "studio_routes.h"

#include <nlohmann/json.hpp>

#include "http/http_speech.h"
#include "tts/serve/studio.h"
// Last: through <resolv.h> it defines a macro `_res`, a parameter name in Eigen's headers.
#include <httplib.h>

namespace tts::serve {

namespace {

using nlohmann::json;

void send_json(httplib::Response& res, const json& body, int status = 200) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

// Runs `answer`, turning a StudioError into its status and message.
template <typename Answer>
void answer(httplib::Response& res, Answer&& make) {
  try {
    send_json(res, make());
  } catch (const StudioError& e) {
    http::send_error(res, e.status, e.what(), "invalid_request_error");
  } catch (const std::exception& e) {
    http::send_error(res, 500, std::string("studio: ") + e.what(), "server_error");
  }
}

std::string language(const httplib::Request& req) {
  return req.has_param("lang") ? req.get_param_value("lang") : "en";
}

int prompt(const httplib::Request& req) {
  const std::string given = req.get_param_value("prompt");
  try {
    std::size_t used = 0;
    const int n = std::stoi(given, &used);
    if (used == given.size()) return n;
  } catch (const std::exception&) {
  }
  throw StudioError(400, "prompt: \"" + given + "\" is not a prompt number (?prompt=N, from 0)");
}

constexpr char kVoice[] = "/v1/studio/voices/([^/]+)";

}  // namespace

void add_studio_routes(httplib::Server& svr, Studio& studio) {
  svr.Get("/v1/studio", [&studio](const httplib::Request&, httplib::Response& res) {
    answer(res, [&] { return studio.overview(); });
  });
  svr.Get(kVoice, [&studio](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] { return studio.session(req.matches[1], language(req)); });
  });
  // The body is read here, not by cpp-httplib's form handling, so that a take sent with any
  // Content-Type (curl's default is a form) has the same limit.
  svr.Post(std::string(kVoice) + "/takes", [&studio](const httplib::Request& req,
                                                     httplib::Response& res,
                                                     const httplib::ContentReader& read) {
    if (req.is_multipart_form_data()) {
      http::send_error(res, 415, "send the take as the body (audio/wav), not a multipart form",
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
    answer(res, [&] { return studio.add_take(req.matches[1], language(req), prompt(req), body); });
  });
  svr.Post(std::string(kVoice) + "/skip",
           [&studio](const httplib::Request& req, httplib::Response& res) {
             answer(res, [&] { return studio.skip(req.matches[1], language(req), prompt(req)); });
           });
  svr.Post(std::string(kVoice) + "/create",
           [&studio](const httplib::Request& req, httplib::Response& res) {
             answer(res, [&] { return studio.create(req.matches[1]); });
           });
  svr.Get("/v1/studio/job", [&studio](const httplib::Request&, httplib::Response& res) {
    answer(res, [&] { return studio.job(); });
  });
  svr.Post("/v1/studio/job/cancel", [&studio](const httplib::Request&, httplib::Response& res) {
    answer(res, [&] { return studio.cancel(); });
  });
}

}  // namespace tts::serve
