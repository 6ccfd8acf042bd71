// `tts serve`'s HTTP side on a real server (port 0 on localhost) with a real client (cpp-httplib's
// and a raw socket): OpenAI's speech request streams the engine's own audio, every bad request
// gets its status and an OpenAI error object, busy means 503, a client that hangs up stops its
// synthesis. Uses a tiny random voice spoken fast, so that sanitizer builds stay quick.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "random_voice_suite.h"
#include "served_http.h"
#include "tts/audio/audio_file.h"
#include "tts/audio/stream_encoder.h"
#include "tts/serve/http_server.h"
// Last: through <resolv.h> it defines a macro `_res`, a parameter name in Eigen's headers.
#include <httplib.h>

namespace fs = std::filesystem;
using namespace tts;
using namespace tts::serve;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const char kText[] = "Hello there. Yes!";

using Served = testing_support::ServedHttp;
using testing_support::connect_raw;

class Http : public testing_support::RandomVoiceSuite<Http> {
 protected:
  static std::string speech_body(const std::string& format, const std::string& text = kText) {
    return json{{"model", "tts-1"},
                {"input", text},
                {"voice", "alloy"},
                {"response_format", format},
                {"speed", 4.0}}
        .dump();
  }
  static std::vector<float> engine_audio(const std::string& text = kText) {
    engine::SynthesisOptions o;
    o.rate = 4.0f;
    return engine::synthesize_all(voice(), text, o);
  }
  static audio::Audio decode(const std::string& bytes, const std::string& ext) {
    fs::path file = folder() / ("body." + ext);
    std::ofstream(file, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return audio::read_audio(file);
  }
  static void expect_error(const httplib::Result& r, int status, const std::string& words) {
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    EXPECT_EQ(r->status, status) << r->body;
    auto j = json::parse(r->body);
    std::string message = j["error"]["message"];
    EXPECT_NE(message.find(words), std::string::npos) << message;
  }
};

std::vector<float> quantised(const std::vector<float>& s) {
  std::vector<float> q(s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    q[i] = std::lrint(std::clamp(s[i], -1.0f, 1.0f) * 32767.0f) / 32768.0f;
  return q;
}

TEST_F(Http, WavStreamIsTheEnginesOwnAudioInChunks) {
  Served s(voice());
  auto c = s.client();
  auto r = c.Post("/v1/audio/speech", speech_body("wav"), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "audio/wav");
  EXPECT_EQ(r->get_header_value("Transfer-Encoding"), "chunked");
  auto expected = quantised(engine_audio());
  ASSERT_GT(expected.size(), 1000u);
  auto got = decode(r->body, "wav");
  EXPECT_EQ(got.sample_rate, voice()->sample_rate());
  ASSERT_EQ(got.samples.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_FLOAT_EQ(got.samples[i], expected[i]);
}

TEST_F(Http, PcmAndFlacAreExactAndTheOthersDecode) {
  Served s(voice());
  auto c = s.client();
  auto expected = quantised(engine_audio());
  auto pcm = c.Post("/v1/audio/speech", speech_body("pcm"), "application/json");
  ASSERT_TRUE(pcm && pcm->status == 200);
  EXPECT_EQ(pcm->body.size(), 2 * expected.size());
  auto flac = c.Post("/v1/audio/speech", speech_body("flac"), "application/json");
  ASSERT_TRUE(flac && flac->status == 200);
  EXPECT_EQ(flac->get_header_value("Content-Type"), "audio/flac");
  auto back = decode(flac->body, "flac");
  ASSERT_EQ(back.samples.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_FLOAT_EQ(back.samples[i], expected[i]);
  for (const auto& format : audio::stream_formats(voice()->sample_rate())) {
    if (format == "wav" || format == "pcm" || format == "flac") continue;
    SCOPED_TRACE(format);
    auto r = c.Post("/v1/audio/speech", speech_body(format), "application/json");
    ASSERT_TRUE(r && r->status == 200);
    auto a = decode(r->body, format == "mp3" ? "mp3" : "ogg");
    // A streamed MP3 keeps the encoder's delay and padding (no gapless header): about 0.12 s.
    EXPECT_NEAR(static_cast<double>(a.samples.size()), static_cast<double>(expected.size()),
                (format == "mp3" ? 0.15 : 0.1) * voice()->sample_rate());
  }
}

TEST_F(Http, BadRequestsGetAStatusAndAnOpenAiErrorObject) {
  ServiceOptions service;
  service.max_text_chars = 40;
  HttpOptions http;
  http.max_body_bytes = 2048;
  Served s(voice(), service, http);
  auto c = s.client();
  auto post = [&](const std::string& body) {
    return c.Post("/v1/audio/speech", body, "application/json");
  };
  expect_error(post("not json"), 400, "not valid JSON");
  expect_error(post(R"({"input": "Hi", "speed": 9})"), 400, "speed");
  expect_error(post(R"({"input": "Hi", "voice": "nobody"})"), 400, "\"nobody\" is not served");
  expect_error(post(R"({"input": "Hi", "response_format": "aac"})"), 400, "response_format");
  expect_error(post(R"({"input": ""})"), 400, "empty");
  expect_error(post(R"({"input": "Hi", "voice": ""})"), 400, "voice: empty");
  expect_error(post(json{{"input", std::string(41, 'a')}}.dump()), 400, "limit of 40");
  expect_error(post(json{{"input", std::string(4000, 'a')}}.dump()), 413, "too large");
  expect_error(c.Get("/v1/audio/speech"), 405, "POST");
  expect_error(c.Get("/v1/nothing"), 404, "/v1/nothing");
  // The server still serves after all of that.
  auto ok = post(speech_body("pcm", "Yes."));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics && metrics->status == 200);
  EXPECT_NE(
      metrics->body.find("tts_request_errors_total{protocol=\"http\",reason=\"bad_request\"} 7"),
      std::string::npos)
      << metrics->body;
  EXPECT_NE(metrics->body.find("tts_syntheses_total 1"), std::string::npos) << metrics->body;
}

// Input with nothing to speak is refused, the same way in every format, rather than answered with
// an empty file.
TEST_F(Http, InputWithNothingToSpeakIs400InEveryFormat) {
  Served s(voice());
  auto c = s.client();
  for (const char* format : {"pcm", "wav", "flac", "mp3", "opus"})
    for (const char* input : {"   ", "...", "\xF0\x9F\x98\x80\xF0\x9F\x8E\x89"}) {
      SCOPED_TRACE(std::string(format) + " \"" + input + "\"");
      auto r =
          c.Post("/v1/audio/speech", json{{"input", input}, {"response_format", format}}.dump(),
                 "application/json");
      expect_error(r, 400, "nothing to speak");
    }
  auto ok = c.Post("/v1/audio/speech", speech_body("pcm", "Yes."), "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_GT(ok->body.size(), 0u);
}

TEST_F(Http, AnApiKeyGuardsEverythingButHealth) {
  HttpOptions http;
  http.api_key = "sesame";
  Served s(voice(), {}, http);
  auto c = s.client();
  expect_error(c.Post("/v1/audio/speech", speech_body("pcm", "Yes."), "application/json"), 401,
               "API key");
  expect_error(c.Get("/v1/models"), 401, "API key");
  auto health = c.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  httplib::Headers auth = {{"Authorization", "Bearer sesame"}};
  auto ok = c.Post("/v1/audio/speech", auth, speech_body("pcm", "Yes."), "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

TEST_F(Http, BusyMeans503WithRetryAfter) {
  ServiceOptions service;
  service.workers = 1;
  service.queue = 0;
  Served s(voice(), service);
  SpeechRequest hold;
  hold.text = "Holding the only worker.";
  auto job = s.service().start(hold, "test");
  auto c = s.client();
  auto r = c.Post("/v1/audio/speech", speech_body("pcm"), "application/json");
  expect_error(r, 503, "busy");
  EXPECT_EQ(r->get_header_value("Retry-After"), "1");
  job.reset();
  auto ok = c.Post("/v1/audio/speech", speech_body("pcm", "Yes."), "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

TEST_F(Http, AClientThatHangsUpStopsItsSynthesis) {
  Served s(voice());
  int fd = connect_raw(s.port());
  ASSERT_GE(fd, 0);
  std::string text;  // about a minute of audio at normal speed
  for (int i = 0; i < 40; ++i) text += "This sentence is here to keep the voice busy. ";
  std::string body = json{{"input", text}, {"response_format", "pcm"}}.dump();
  std::string request =
      "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Type: "
      "application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  ASSERT_EQ(::send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  char buffer[4096];
  ASSERT_GT(::recv(fd, buffer, sizeof buffer, 0), 0);  // the stream has begun
  EXPECT_EQ(s.service().admission().running(), 1);
  ::close(fd);
  auto start = std::chrono::steady_clock::now();
  while (s.service().admission().running() > 0 && std::chrono::steady_clock::now() - start < 20s)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(s.service().admission().running(), 0);
  // Well before the minute of audio it was asked for (one chunk, then the next write fails).
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  auto metrics = s.client().Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("reason=\"cancelled\"} 1"), std::string::npos) << metrics->body;
}

TEST_F(Http, TheFirstBytesLeaveBeforeTheAudioIsFinished) {
  Served s(voice());
  auto c = s.client();
  std::string text = "One sentence first. Then a second one.";
  std::string body = json{{"input", text}, {"response_format", "pcm"}}.dump();
  auto start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point first{}, last{};
  std::size_t bytes = 0;
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/audio/speech";
  req.body = body;
  req.set_header("Content-Type", "application/json");
  req.content_receiver = [&](const char*, std::size_t n, std::uint64_t, std::uint64_t) {
    if (bytes == 0) first = std::chrono::steady_clock::now();
    bytes += n;
    last = std::chrono::steady_clock::now();
    return true;
  };
  auto r = c.send(req);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  engine::SynthesisOptions normal_speed;
  EXPECT_EQ(bytes, 2 * engine::synthesize_all(voice(), text, normal_speed).size());
  double to_first = std::chrono::duration<double>(first - start).count();
  double total = std::chrono::duration<double>(last - start).count();
  EXPECT_LT(to_first, 0.5 * total) << "first bytes after " << to_first << " s of " << total;
}

TEST_F(Http, VoicesModelsAndHealthDescribeTheServer) {
  Served s(voice());
  auto c = s.client();
  auto voices = c.Get("/v1/audio/voices");
  ASSERT_TRUE(voices && voices->status == 200);
  auto v = json::parse(voices->body);
  ASSERT_EQ(v["voices"].size(), 1u);
  EXPECT_EQ(v["voices"][0]["id"], "random");
  EXPECT_EQ(v["voices"][0]["sample_rate"], voice()->sample_rate());
  auto models = json::parse(c.Get("/v1/models")->body);
  EXPECT_EQ(models["object"], "list");
  EXPECT_EQ(models["data"][0]["id"], "tts-1");
  auto health = c.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(json::parse(health->body)["status"], "ok");
}

TEST_F(Http, ShutdownCancelsStreamsPastTheDeadline) {
  Served s(voice());
  SpeechRequest long_one;
  for (int i = 0; i < 40; ++i) long_one.text += "This sentence is here to keep the voice busy. ";
  auto job = s.service().start(long_one, "test");
  std::thread reader([&] {
    engine::AudioChunk chunk;
    try {
      while (job->next(chunk)) {
      }
    } catch (const engine::SynthesisCancelled&) {
    }
    job.reset();  // as a connection does once its stream has ended
  });
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(s.service().shutdown(start + 100ms));
  reader.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
  expect_error(s.client().Post("/v1/audio/speech", speech_body("pcm"), "application/json"), 503,
               "");
}

TEST_F(Http, ARequestPastItsTimeLimitIsCutOff) {
  ServiceOptions service;
  service.max_request = std::chrono::milliseconds(200);
  Served s(voice(), service);
  std::string text;
  for (int i = 0; i < 40; ++i) text += "This sentence is here to keep the voice busy. ";
  auto start = std::chrono::steady_clock::now();
  auto r =
      s.client().Post("/v1/audio/speech", json{{"input", text}, {"response_format", "pcm"}}.dump(),
                      "application/json");
  // The status was sent with the first audio; the cut shows as a transfer without its end.
  EXPECT_FALSE(r && r->status == 200 && r->body.size() == 2 * engine_audio(text).size());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
  auto metrics = s.client().Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("reason=\"timeout\"} 1"), std::string::npos) << metrics->body;
  EXPECT_EQ(s.service().admission().running(), 0);
}

TEST_F(Http, AnIdleConnectionIsClosed) {
  HttpOptions http;
  http.read_timeout = std::chrono::seconds(1);
  Served s(voice(), {}, http);
  int fd = connect_raw(s.port());
  ASSERT_GE(fd, 0);
  const char partial[] = "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\n";  // and then nothing
  ASSERT_GT(::send(fd, partial, sizeof partial - 1, 0), 0);
  auto start = std::chrono::steady_clock::now();
  char buffer[1024];
  while (::recv(fd, buffer, sizeof buffer, 0) > 0) {
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);  // closed by the server
  ::close(fd);
  auto health = s.client().Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

}  // namespace
