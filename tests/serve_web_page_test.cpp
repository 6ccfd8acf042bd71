// The page `tts serve` answers GET / with, over plain HTTP from a real server on localhost: it is
// the HTML file from the source tree byte for byte, served as text/html without the API key, it
// loads nothing from anywhere (no external URL, a Content-Security-Policy that allows only this
// server), and what it sends (`pitch` beside OpenAI's fields) is what the server accepts. The
// page in a browser: tests/serve/test_web_page.py.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "random_voice_suite.h"
#include "tts/serve/http_server.h"
#include "tts/serve/web_page.h"
// Last: through <resolv.h> it defines a macro `_res`, a parameter name in Eigen's headers.
#include <httplib.h>

using namespace tts;
using namespace tts::serve;
using nlohmann::json;

namespace {

class Served {
 public:
  Served(std::shared_ptr<const engine::Voice> voice, HttpOptions http = {})
      : service_({{"random", std::move(voice)}}, {}), http_(service_, (http.port = 0, http)) {
    http_.bind();
    thread_ = std::thread([this] { http_.run(); });
  }
  ~Served() {
    service_.shutdown(std::chrono::steady_clock::now());
    http_.stop();
    thread_.join();
  }
  httplib::Client client() {
    httplib::Client c("127.0.0.1", http_.port());
    c.set_read_timeout(60);
    return c;
  }

 private:
  SpeechService service_;
  HttpServer http_;
  std::thread thread_;
};

class WebPage : public testing_support::RandomVoiceSuite<WebPage> {};

std::string source_page() {
  std::ifstream in(std::string(TTS_SOURCE_DIR) + "/serve/web/index.html", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(WebPage, GetRootServesTheSourcePageAsHtml) {
  Served s(voice());
  auto c = s.client();
  auto r = c.Get("/");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  std::string page = source_page();
  ASSERT_GT(page.size(), 1000u);
  EXPECT_EQ(r->body, page);  // embedded at build time, byte for byte
  EXPECT_EQ(web_page(), page);
  for (const char* part :
       {"<!doctype html>", "<title>", "<textarea", "id=\"voice\"", "id=\"rate\"", "id=\"pitch\"",
        "type=\"password\"", "v1/audio/voices", "v1/audio/speech", "\"pcm\""})
    EXPECT_NE(r->body.find(part), std::string::npos) << part;
  // HEAD, as link checkers and proxies send it, gets the headers alone.
  auto head = c.Head("/");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_TRUE(head->body.empty());
}

TEST_F(WebPage, ReferencesNoExternalUrl) {
  std::string page{web_page()};
  // No absolute URL of any scheme, nor a scheme-relative one ("//host/…") in an attribute or CSS.
  EXPECT_EQ(page.find("://"), std::string::npos);
  EXPECT_FALSE(std::regex_search(page, std::regex(R"((src|href|action)\s*=\s*["']?//)")));
  EXPECT_EQ(page.find("@import"), std::string::npos);
  EXPECT_EQ(page.find("url("), std::string::npos);
  // Every src= and href= is inline data, a fragment, or the studio's script from this server;
  // fetch() asks this server, by relative path.
  std::regex attribute(R"re((src|href)\s*=\s*"([^"]*)")re");
  for (std::sregex_iterator it(page.begin(), page.end(), attribute), end; it != end; ++it) {
    std::string value = (*it)[2];
    EXPECT_TRUE(value.rfind("data:", 0) == 0 || value.rfind("#", 0) == 0 || value == "studio.js")
        << value;
  }
  std::regex fetch(R"re(fetch\(\s*"([^"]*)")re");
  int fetches = 0;
  for (std::sregex_iterator it(page.begin(), page.end(), fetch), end; it != end; ++it, ++fetches)
    EXPECT_EQ(std::string((*it)[1]).rfind("v1/audio/", 0), 0u) << (*it)[1];
  EXPECT_EQ(fetches, 2);
  // The one element that loads anything is the studio's script, from this server, by relative path.
  std::regex loading(R"re(<(script|link|img|iframe)[^>]*\ssrc\s*=\s*"([^"]*)")re");
  for (std::sregex_iterator it(page.begin(), page.end(), loading), end; it != end; ++it)
    EXPECT_EQ(std::string((*it)[2]), "studio.js");
}

TEST_F(WebPage, ThePolicyAllowsOnlyThisServer) {
  Served s(voice());
  auto r = s.client().Get("/");
  ASSERT_TRUE(r);
  std::string policy = r->get_header_value("Content-Security-Policy");
  EXPECT_NE(policy.find("default-src 'none'"), std::string::npos) << policy;
  EXPECT_NE(policy.find("connect-src 'self'"), std::string::npos) << policy;
  EXPECT_EQ(policy.find("http"), std::string::npos) << policy;
  EXPECT_EQ(r->get_header_value("X-Content-Type-Options"), "nosniff");
}

TEST_F(WebPage, IsServedWithoutTheApiKeyWhileTheApiNeedsIt) {
  HttpOptions http;
  http.api_key = "sesame";
  Served s(voice(), http);
  auto c = s.client();
  auto page = c.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->body, web_page());
  auto voices = c.Get("/v1/audio/voices");
  ASSERT_TRUE(voices);
  EXPECT_EQ(voices->status, 401);
  // Only the page itself is open: another path, or another method on it, still needs the key.
  auto other = c.Get("/index.html");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 401);
  auto keyed = c.Get("/v1/audio/voices", {{"Authorization", "Bearer sesame"}});
  ASSERT_TRUE(keyed);
  EXPECT_EQ(keyed->status, 200);
  EXPECT_NE(keyed->body.find("\"sample_rate\""), std::string::npos);  // what the page reads
}

TEST_F(WebPage, TheRequestThePageSendsIsAccepted) {
  Served s(voice());
  auto c = s.client();
  json body = {{"model", "tts-1"},
               {"input", "Hello there."},
               {"voice", "random"},
               {"response_format", "pcm"},
               {"speed", 1.5}};
  auto plain = c.Post("/v1/audio/speech", body.dump(), "application/json");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->status, 200) << plain->body;
  EXPECT_EQ(plain->get_header_value("Content-Type").rfind("audio/pcm", 0), 0u);
  EXPECT_GT(plain->body.size(), 1000u);
  EXPECT_EQ(plain->body.size() % 2, 0u);
  // The page adds `pitch` (semitones) for a voice that can shift; the server checks it.
  body["pitch"] = 2;
  auto shifted = c.Post("/v1/audio/speech", body.dump(), "application/json");
  ASSERT_TRUE(shifted);
  if (voice()->can_shift_pitch()) {
    EXPECT_EQ(shifted->status, 200) << shifted->body;
  } else {
    EXPECT_EQ(shifted->status, 400);
    EXPECT_NE(shifted->body.find("cannot shift its pitch"), std::string::npos) << shifted->body;
  }
  body["pitch"] = 30;
  auto out_of_range = c.Post("/v1/audio/speech", body.dump(), "application/json");
  ASSERT_TRUE(out_of_range);
  EXPECT_EQ(out_of_range->status, 400);
  EXPECT_NE(out_of_range->body.find("pitch: must be within"), std::string::npos);
}

}  // namespace
