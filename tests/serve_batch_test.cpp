// `tts serve` with continuous batching (ServiceOptions::batch, engine/stream_batch.h) on a real
// HTTP server (port 0 on localhost) with a real client: concurrent requests share one batch and
// each streams exactly the audio it has without one (pcm, bit for bit); a request beyond the
// batch's streams and queue gets 503 at once, over HTTP and through the service as Wyoming calls
// it, and a freed stream serves the next. A tiny random voice spoken fast.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "random_voice_suite.h"
#include "tts/serve/http_server.h"
#include "tts/serve/speech_service.h"
// Last: through <resolv.h> it defines a macro `_res`, a parameter name in Eigen's headers.
#include <httplib.h>

using namespace tts;
using namespace tts::serve;
using nlohmann::json;

namespace {

class BatchedServer {
 public:
  BatchedServer(std::shared_ptr<const engine::Voice> voice, ServiceOptions service)
      : service_({{"random", std::move(voice)}}, service), http_(service_, options()) {
    http_.bind();
    thread_ = std::thread([this] { http_.run(); });
  }
  ~BatchedServer() {
    service_.shutdown(std::chrono::steady_clock::now());
    http_.stop();
    thread_.join();
  }
  httplib::Result speak(const std::string& text) {
    httplib::Client c("127.0.0.1", http_.port());
    c.set_read_timeout(60);
    return c.Post("/v1/audio/speech",
                  json{{"model", "tts-1"},
                       {"input", text},
                       {"voice", "alloy"},
                       {"response_format", "pcm"},
                       {"speed", 4.0}}
                      .dump(),
                  "application/json");
  }
  SpeechService& service() { return service_; }

 private:
  static HttpOptions options() {
    HttpOptions o;
    o.port = 0;
    return o;
  }
  SpeechService service_;
  HttpServer http_;
  std::thread thread_;
};

class ServeBatch : public testing_support::RandomVoiceSuite<ServeBatch> {
 protected:
  // What the engine says without a batch, as 16-bit PCM bytes.
  static std::string engine_pcm(const std::string& text) {
    engine::SynthesisOptions o;
    o.rate = 4.0f;
    std::string bytes;
    for (float s : engine::synthesize_all(voice(), text, o)) {
      const auto v = static_cast<int16_t>(std::lrint(std::clamp(s, -1.0f, 1.0f) * 32767.0f));
      bytes.append(reinterpret_cast<const char*>(&v), 2);
    }
    return bytes;
  }
  static ServiceOptions batched(int streams, int queue) {
    ServiceOptions o;
    o.batch = streams;
    o.batch_threads = 2;
    o.queue = queue;
    o.queue_wait = std::chrono::milliseconds(0);
    return o;
  }
};

}  // namespace

TEST_F(ServeBatch, ConcurrentRequestsShareTheBatchAndKeepTheirOwnAudio) {
  BatchedServer s(voice(), batched(3, 0));
  ASSERT_TRUE(s.service().batch(0));
  EXPECT_EQ(s.service().admission().workers(), 3);
  const std::vector<std::string> texts = {"Hello there. Yes!", "A second request, speaking.",
                                          "And a third one."};
  std::vector<std::future<httplib::Result>> replies;
  for (const auto& text : texts)
    replies.push_back(std::async(std::launch::async, [&s, text] { return s.speak(text); }));
  for (std::size_t i = 0; i < texts.size(); ++i) {
    httplib::Result r = replies[i].get();
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    ASSERT_EQ(r->status, 200) << r->body;
    EXPECT_TRUE(r->body == engine_pcm(texts[i]))
        << "request " << i << " differs from its own audio";
  }
  EXPECT_GE(s.service().batch(0)->stats().steps, 1u);
}

TEST_F(ServeBatch, BeyondTheBatchARequestIsRefusedAtOnce) {
  BatchedServer s(voice(), batched(2, 0));
  SpeechRequest hold;
  hold.text = "Holding a stream of the batch. And holding it a while longer.";
  auto first = s.service().start(hold, "test");
  auto second = s.service().start(hold, "test");
  const auto asked = std::chrono::steady_clock::now();
  httplib::Result busy = s.speak("No room.");
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->status, 503) << busy->body;
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(5))
      << "refused at once, not served slowly";
  SpeechRequest wyoming;  // Wyoming's requests go through the same service
  wyoming.text = "No room either.";
  EXPECT_THROW(s.service().start(wyoming, "wyoming"), BusyError);
  second.reset();  // a stream of the batch is free again
  httplib::Result ok = s.speak("Yes.");
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  EXPECT_TRUE(ok->body == engine_pcm("Yes."));
}
