// `tts serve`'s HTTP connections under abuse, on a real server on localhost with raw sockets:
// hundreds of idle and slow clients leave health and speech answered at once; a request that does
// not arrive whole in time gets 408; the connection cap and keep-alive limits hold; bad framing is
// refused at once; every method on a known path is answered, 405 with Allow where it is not
// served; the API key's scheme in any case; a request queued at shutdown is told so at once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "random_voice_suite.h"
#include "sanitizer_build.h"
#include "served_http.h"

using namespace tts;
using namespace tts::serve;
using namespace tts::testing_support;
using namespace std::chrono_literals;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// "At once": what an answer may take while the server is under the abuse a test makes. Sanitizer
// builds run everything several times slower, so they get more room.
#if TTS_SANITIZER_BUILD
constexpr auto kPrompt = 5s;
#else
constexpr auto kPrompt = 1s;
#endif

std::string short_speech() {
  return json{{"input", "Yes."}, {"response_format", "pcm"}, {"speed", 4.0}}.dump();
}

std::string long_text() {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "This sentence is here to keep the voice busy. ";
  return text;
}

std::string raw_request(const std::string& method, const std::string& path,
                        const std::string& headers = "", const std::string& body = "") {
  return method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

class HttpConnections : public RandomVoiceSuite<HttpConnections> {};

TEST_F(HttpConnections, IdleAndSlowClientsLeaveHealthAndSpeechAnsweredAtOnce) {
  ServedHttp s(voice());
  std::vector<int> idle, slow;
  for (int i = 0; i < 200; ++i) {
    int fd = connect_raw(s.port());
    ASSERT_GE(fd, 0);
    idle.push_back(fd);
  }
  for (int i = 0; i < 40; ++i) {
    int fd = connect_raw(s.port());
    ASSERT_GE(fd, 0);
    const char start[] = "GET /health HTTP/1.1\r\nHost: x\r\n";
    ASSERT_GT(::send(fd, start, sizeof start - 1, MSG_NOSIGNAL), 0);
    slow.push_back(fd);
  }
  // Closed last, after the trickle has stopped writing to them.
  struct Close {
    std::vector<int>& fds;
    ~Close() {
      for (int fd : fds) ::close(fd);
    }
  } close_idle{idle}, close_slow{slow};
  // The slow clients trickle a header line each, every 300 ms, while the checks run.
  struct Trickle {
    std::atomic<bool> on{true};
    std::thread thread;
    ~Trickle() {
      on = false;
      thread.join();
    }
  } trickle;
  trickle.thread = std::thread([&] {
    for (int line = 0; trickle.on; ++line) {
      std::string header = "X-Slow-" + std::to_string(line) + ": yes\r\n";
      for (int fd : slow) ::send(fd, header.data(), header.size(), MSG_NOSIGNAL);
      for (int i = 0; i < 30 && trickle.on; ++i) std::this_thread::sleep_for(10ms);
    }
  });
  for (int round = 0; round < 3; ++round) {
    auto c = s.client(5);
    auto start = Clock::now();
    auto health = c.Get("/health");
    auto health_time = Clock::now() - start;
    ASSERT_TRUE(health) << httplib::to_string(health.error());
    EXPECT_EQ(health->status, 200);
    EXPECT_LT(health_time, kPrompt);
    start = Clock::now();
    auto speech = c.Post("/v1/audio/speech", short_speech(), "application/json");
    auto speech_time = Clock::now() - start;
    ASSERT_TRUE(speech) << httplib::to_string(speech.error());
    EXPECT_EQ(speech->status, 200);
    EXPECT_GT(speech->body.size(), 1000u);
    EXPECT_LT(speech_time, kPrompt);
    std::this_thread::sleep_for(300ms);
  }
}

TEST_F(HttpConnections, ARequestThatDoesNotArriveWholeInTimeGets408) {
  HttpOptions http;
  http.read_timeout = 1s;
  ServedHttp s(voice(), {}, http);
  int fd = connect_raw(s.port());
  ASSERT_GE(fd, 0);
  auto start = Clock::now();
  std::atomic<bool> trickling{true};
  std::thread trickle([&] {  // a header line every 200 ms: each line is in time, the whole is not
    const char first[] = "GET /health HTTP/1.1\r\nHost: x\r\n";
    ::send(fd, first, sizeof first - 1, MSG_NOSIGNAL);
    for (int line = 0; trickling && line < 50; ++line) {
      std::this_thread::sleep_for(200ms);
      std::string header = "X-Slow-" + std::to_string(line) + ": yes\r\n";
      ::send(fd, header.data(), header.size(), MSG_NOSIGNAL);
    }
  });
  std::string response = read_until_closed(fd, 8s);
  auto took = Clock::now() - start;
  trickling = false;
  trickle.join();
  ::close(fd);
  EXPECT_EQ(status_of(response), 408) << response;
  EXPECT_GE(took, 900ms);
  EXPECT_LT(took, 1s + kPrompt);
}

TEST_F(HttpConnections, BeyondTheCapTheLongestWaitingIsClosedOrTheNewcomerGets503) {
  HttpOptions http;
  http.max_connections = 2;
  ServiceOptions service;
  service.workers = 1;
  service.queue = 2;
  service.queue_wait = 30s;
  ServedHttp s(voice(), service, http);
  // Two idle connections fill the cap; a third is served, and the older idle one is closed.
  int first = connect_raw(s.port());
  std::this_thread::sleep_for(50ms);
  int second = connect_raw(s.port());
  std::this_thread::sleep_for(50ms);
  auto health = exchange_raw(s.port(), raw_request("GET", "/health"), kPrompt);
  EXPECT_EQ(status_of(health), 200) << health;
  EXPECT_EQ(read_until_closed(first, kPrompt), "");  // closed to make room (recv gives 0)
  pollfd p{second, POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 0), 0) << "the newer idle connection is still open";
  ::close(first);
  ::close(second);

  std::this_thread::sleep_for(100ms);  // the server sees them close

  // Two connections whose speech requests wait for the one synthesis worker, which the test holds:
  // no connection waits for its request, so a third gets 503 at once.
  SpeechRequest hold;
  hold.text = long_text();
  auto job = s.service().start(hold, "test");
  std::vector<int> queued;
  for (int i = 0; i < 2; ++i) {
    int fd = connect_raw(s.port());
    std::string request = raw_request("POST", "/v1/audio/speech", "", short_speech());
    EXPECT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()));
    queued.push_back(fd);
  }
  auto start = Clock::now();
  while (s.service().admission().waiting() < 2 && Clock::now() - start < 10s)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(s.service().admission().waiting(), 2);
  start = Clock::now();
  auto refused = exchange_raw(s.port(), raw_request("GET", "/health"), kPrompt + 2s);
  EXPECT_LT(Clock::now() - start, kPrompt);
  EXPECT_EQ(status_of(refused), 503) << refused;
  EXPECT_EQ(header_of(refused, "Retry-After"), "1");
  EXPECT_NE(refused.find("connections open"), std::string::npos) << refused;
  job.reset();  // the worker is free: both queued requests are served
  for (int fd : queued) {
    EXPECT_EQ(status_of(read_until_closed(fd, 20s)), 200);
    ::close(fd);
  }
  auto metrics = s.client(5).Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("reason=\"connections\"}"), std::string::npos) << metrics->body;
}

TEST_F(HttpConnections, AnIdleKeptAliveConnectionIsClosedAfterItsTimeAndItsCount) {
  HttpOptions http;
  http.keep_alive_timeout = 300ms;
  http.keep_alive_max = 3;
  ServedHttp s(voice(), {}, http);
  const std::string get = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
  int fd = connect_raw(s.port());
  ASSERT_GE(fd, 0);
  ::send(fd, get.data(), get.size(), MSG_NOSIGNAL);
  auto start = Clock::now();
  std::string response = read_until_closed(fd, 3s);
  auto took = Clock::now() - start;
  EXPECT_EQ(status_of(response), 200) << response;
  EXPECT_GE(took, 250ms);  // kept open after the answer, for a while
  EXPECT_LT(took, 300ms + kPrompt);
  ::close(fd);

  // Three requests sent at once (pipelined): three answers, the third with Connection: close.
  fd = connect_raw(s.port());
  std::string three = get + get + get + get;
  ::send(fd, three.data(), three.size(), MSG_NOSIGNAL);
  response = read_until_closed(fd, 3s);
  ::close(fd);
  std::size_t answers = 0;
  for (std::size_t at = 0; (at = response.find("HTTP/1.1 200", at)) != std::string::npos; ++at)
    ++answers;
  EXPECT_EQ(answers, 3u) << response;
  EXPECT_NE(response.find("Connection: close"), std::string::npos);
}

TEST_F(HttpConnections, BadFramingIsRefusedAtOnce) {
  ServedHttp s(voice());
  struct Case {
    std::string headers;
    int status;
    std::string words;
  };
  const Case cases[] = {
      {"Content-Length: -5\r\n", 400, "Content-Length"},
      {"Content-Length: 12abc\r\n", 400, "Content-Length"},
      {"Content-Length: 99999999999999999999999\r\n", 400, "Content-Length"},
      {"Content-Length: 10\r\nContent-Length: 11\r\n", 400, "twice"},
      {"Content-Length: 100000\r\n", 413, "too large"},
      {"Transfer-Encoding: gzip\r\n", 501, "gzip"},
      {"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", 400, "both"},
      {"X-Big: " + std::string(20000, 'x') + "\r\n", 431, "headers"},
      // One line past cpp-httplib's 8 KiB for a header, inside the 16 KiB for them all.
      {"X-Long: " + std::string(9000, 'x') + "\r\n", 431, "header line"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.headers.substr(0, 60));
    std::string request =
        "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\n" + c.headers + "\r\n";  // no body follows
    auto start = Clock::now();
    std::string response = exchange_raw(s.port(), request, 5s);
    EXPECT_LT(Clock::now() - start, kPrompt);
    EXPECT_EQ(status_of(response), c.status) << response;
    EXPECT_NE(response.find(c.words), std::string::npos) << response;
  }
  // A request cut short by the client's half-close gets its answer before the server closes.
  int fd = connect_raw(s.port());
  const std::string truncated =
      "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"input\":";
  ::send(fd, truncated.data(), truncated.size(), MSG_NOSIGNAL);
  ::shutdown(fd, SHUT_WR);
  std::string response = read_until_closed(fd, 5s);
  ::close(fd);
  EXPECT_EQ(status_of(response), 400) << response;
  EXPECT_NE(response.find("ended inside the request"), std::string::npos) << response;

  // A chunked body is read whole, then served.
  std::string body = short_speech();
  char size[16];
  std::snprintf(size, sizeof size, "%zx", body.size() - 10);
  std::string chunked =
      "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
      "Transfer-Encoding: chunked\r\n\r\n" +
      std::string(size) + "\r\n" + body.substr(0, body.size() - 10) + "\r\na\r\n" +
      body.substr(body.size() - 10) + "\r\n0\r\n\r\n";
  EXPECT_EQ(status_of(exchange_raw(s.port(), chunked, 10s)), 200);
}

TEST_F(HttpConnections, AJsonBodyIsReadToMaxBodyWhateverItsContentType) {
  ServedHttp s(voice());
  // Over 8 KiB (cpp-httplib's own limit on forms): `instructions` is accepted and ignored.
  std::string body =
      json{{"input", "Yes."}, {"response_format", "pcm"}, {"instructions", std::string(9000, 'x')}}
          .dump();
  auto c = s.client(10);
  for (const char* type : {"application/x-www-form-urlencoded", "text/plain", "application/json"}) {
    SCOPED_TRACE(type);
    auto r = c.Post("/v1/audio/speech", body, type);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
  }
  auto form = c.Post("/v1/audio/speech", "--b\r\n\r\n--b--\r\n", "multipart/form-data; boundary=b");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 415) << form->body;
}

TEST_F(HttpConnections, EveryMethodOnAKnownPathIsServedOrGets405WithAllow) {
  ServedHttp s(voice());
  const std::pair<const char*, const char*> paths[] = {{"/v1/audio/speech", "POST"},
                                                       {"/v1/audio/voices", "GET, HEAD"},
                                                       {"/v1/models", "GET, HEAD"},
                                                       {"/health", "GET, HEAD"},
                                                       {"/metrics", "GET, HEAD"}};
  for (const auto& [path, allow] : paths) {
    for (std::string method : {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
      SCOPED_TRACE(method + " " + path);
      bool allowed = std::string(allow).find(method) != std::string::npos;
      std::string body = method == "POST" || method == "PUT" || method == "PATCH" ? "{}" : "";
      std::string response = exchange_raw(s.port(), raw_request(method, path, "", body));
      if (allowed) {
        EXPECT_NE(status_of(response), 405) << response;
        EXPECT_NE(status_of(response), 404) << response;
      } else {
        EXPECT_EQ(status_of(response), 405) << response;
        EXPECT_EQ(header_of(response, "Allow"), allow) << response;
      }
    }
  }
  EXPECT_EQ(status_of(exchange_raw(s.port(), raw_request("PUT", "/v1/nothing", "", "{}"))), 404);
}

TEST_F(HttpConnections, TheBearerSchemeIsCaseInsensitiveAndA401SaysHowToAuthenticate) {
  HttpOptions http;
  http.api_key = "sesame";
  ServedHttp s(voice(), {}, http);
  for (const char* ok : {"Bearer sesame", "bearer sesame", "BEARER  sesame"}) {
    SCOPED_TRACE(ok);
    auto r = exchange_raw(
        s.port(), raw_request("GET", "/v1/models", "Authorization: " + std::string(ok) + "\r\n"));
    EXPECT_EQ(status_of(r), 200) << r;
  }
  for (const char* refused :
       {"", "Authorization: Bearer open\r\n", "Authorization: sesame\r\n",
        "Authorization: Basic sesame\r\n", "Authorization: Bearersesame\r\n"}) {
    SCOPED_TRACE(refused);
    auto r = exchange_raw(s.port(), raw_request("GET", "/v1/models", refused));
    EXPECT_EQ(status_of(r), 401) << r;
    EXPECT_EQ(header_of(r, "WWW-Authenticate"), "Bearer") << r;
  }
}

TEST_F(HttpConnections, ARequestQueuedAtShutdownGets503StoppingAtOnce) {
  ServiceOptions service;
  service.workers = 1;
  service.queue = 1;
  service.queue_wait = 30s;
  ServedHttp s(voice(), service);
  SpeechRequest hold;
  hold.text = long_text();
  auto job = s.service().start(hold, "test");
  int status = 0;
  std::string body;
  Clock::time_point answered;
  std::thread client([&] {
    auto r = s.client(20).Post("/v1/audio/speech", short_speech(), "application/json");
    answered = Clock::now();
    if (r) {
      status = r->status;
      body = r->body;
    }
  });
  auto start = Clock::now();
  while (s.service().admission().waiting() == 0 && Clock::now() - start < 10s)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(s.service().admission().waiting(), 1);
  // As `tts serve` does at SIGTERM: drain, giving the running stream its time to finish.
  s.http().set_draining();
  auto stopping = Clock::now();
  std::thread drain([&] { s.service().shutdown(Clock::now() + 20s); });
  client.join();
  job.reset();  // the running stream ends; the drain is over
  drain.join();
  ASSERT_EQ(status, 503) << body;
  EXPECT_LT(answered - stopping, kPrompt);
  std::string message = json::parse(body)["error"]["message"];
  EXPECT_EQ(message.rfind("the server is stopping", 0), 0u) << message;
}

TEST_F(HttpConnections, AVoiceNameWithANulIsRefused) {
  ServedHttp s(voice());
  auto r = s.client(10).Post(
      "/v1/audio/speech", json{{"input", "Yes."}, {"voice", std::string("random\0/x", 9)}}.dump(),
      "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  std::string message = json::parse(r->body)["error"]["message"];
  EXPECT_NE(message.find("NUL"), std::string::npos) << message;
}

}  // namespace
