// The Wyoming server on the bundled voice, through a real TCP socket: describe, synthesize, the
// streaming form, errors that keep the connection and errors that end it, busy workers, the
// connection limit, the idle timeout, a client that hangs up mid-synthesis, and a prompt stop().
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <optional>
#include <thread>

#include "sanitizer_build.h"
#include "tts/engine/voice.h"
#include "tts/serve/speech_service.h"
#include "tts/serve/wyoming_protocol.h"
#include "tts/serve/wyoming_server.h"

using namespace tts;
using namespace tts::serve;
using nlohmann::json;
using wyoming::Event;
using Clock = std::chrono::steady_clock;

namespace {

// "At once", in seconds: a chunk or two of the bundled voice. Sanitizer builds run the vocoder
// several times slower (7 s measured under AddressSanitizer on 2 vCPUs), so they get more room.
#if TTS_SANITIZER_BUILD
constexpr double kPrompt = 20.0;
#else
constexpr double kPrompt = 2.0;
#endif

std::shared_ptr<const engine::Voice> g_voice;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

WyomingOptions on_any_port(WyomingOptions options) {
  options.port = 0;
  return options;
}

// A SpeechService and a WyomingServer on a free port, run() on its own thread.
struct Running {
  explicit Running(ServiceOptions service_options = {}, WyomingOptions options = {})
      : service({{"default", g_voice}}, service_options), server(service, on_any_port(options)) {
    server.bind();
    thread = std::thread([this] { server.run(); });
  }
  ~Running() {
    server.stop();
    thread.join();
  }
  SpeechService service;
  WyomingServer server;
  std::thread thread;
};

Event event(const std::string& type, json data = json::object()) {
  Event e;
  e.type = type;
  e.data = std::move(data);
  return e;
}

// A Wyoming client written against the framing only.
class Client {
 public:
  explicit Client(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~Client() { close(); }
  bool connected() const { return connected_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void shut_writing() { ::shutdown(fd_, SHUT_WR); }

  void send_raw(const std::string& bytes) {
    ASSERT_EQ(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  void send(const Event& e) { send_raw(wyoming::to_bytes(e)); }

  // The next event; nothing at end of stream or after `timeout`.
  std::optional<Event> next(std::chrono::seconds timeout = std::chrono::seconds(20)) {
    auto deadline = Clock::now() + timeout;
    while (pending_.empty()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      pollfd p{fd_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return {};
      char buffer[65536];
      ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return {};
      std::vector<Event> events;
      EXPECT_TRUE(parser_.feed(buffer, static_cast<std::size_t>(n), events)) << parser_.error();
      for (auto& e : events) pending_.push_back(std::move(e));
    }
    Event e = std::move(pending_.front());
    pending_.pop_front();
    return e;
  }

  // True if the server closes the connection (with nothing more to say) within `timeout`.
  bool closed_by_server(std::chrono::seconds timeout = std::chrono::seconds(5)) {
    return !next(timeout) && pending_.empty();
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  wyoming::EventParser parser_;
  std::deque<Event> pending_;
};

// One audio stream's events, audio-start to audio-stop, checked as they come.
struct Audio {
  int rate = 0;
  std::size_t samples = 0, chunks = 0;
  std::optional<Event> error;  // instead of audio
  double seconds() const { return rate ? static_cast<double>(samples) / rate : 0.0; }
};

Audio read_audio(Client& client) {
  Audio audio;
  auto start = client.next();
  if (!start) {
    ADD_FAILURE() << "no audio-start";
    return audio;
  }
  if (start->type == "error") {
    audio.error = start;
    return audio;
  }
  EXPECT_EQ(start->type, "audio-start");
  audio.rate = start->data.value("rate", 0);
  EXPECT_EQ(audio.rate, g_voice->sample_rate());
  EXPECT_EQ(start->data.value("width", 0), 2);
  EXPECT_EQ(start->data.value("channels", 0), 1);
  for (;;) {
    auto e = client.next();
    if (!e) {
      ADD_FAILURE() << "the audio stream ended without audio-stop";
      return audio;
    }
    if (e->type == "audio-stop") break;
    EXPECT_EQ(e->type, "audio-chunk");
    EXPECT_EQ(e->data.value("rate", 0), audio.rate);
    EXPECT_EQ(e->data.value("width", 0), 2);
    EXPECT_EQ(e->data.value("channels", 0), 1);
    EXPECT_EQ(e->data.value("timestamp", -1), static_cast<int>(audio.samples * 1000 / audio.rate));
    EXPECT_EQ(e->payload.size() % 2, 0u);
    EXPECT_GT(e->payload.size(), 0u);
    EXPECT_LE(e->payload.size(), static_cast<std::size_t>(audio.rate) * 2);  // at most 1 s
    audio.samples += e->payload.size() / 2;
    ++audio.chunks;
  }
  return audio;
}

std::optional<Event> expect_error(Client& client, const std::string& code) {
  auto e = client.next();
  EXPECT_TRUE(e && e->type == "error") << (e ? e->type : "nothing");
  if (!e || e->type != "error") return {};
  EXPECT_EQ(e->data.value("code", ""), code) << e->data.dump();
  EXPECT_FALSE(e->data.value("text", "").empty());
  return e;
}

class WyomingServerTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    g_voice = engine::Voice::load(std::string(TTS_SOURCE_DIR) + "/voices/default");
  }
  static void TearDownTestSuite() { g_voice.reset(); }
};

TEST_F(WyomingServerTest, DescribeAnswersInfoWithTheVoices) {
  Running r;
  Client client(r.server.port());
  ASSERT_TRUE(client.connected());
  client.send(event("describe"));
  auto info = client.next();
  ASSERT_TRUE(info);
  ASSERT_EQ(info->type, "info");
  ASSERT_EQ(info->data["tts"].size(), 1u);
  const json& program = info->data["tts"][0];
  EXPECT_EQ(program["name"], "tts");
  EXPECT_EQ(program["installed"], true);
  EXPECT_EQ(program["supports_synthesize_streaming"], true);
  EXPECT_TRUE(program["version"].is_string());
  EXPECT_TRUE(program["attribution"]["name"].is_string());
  EXPECT_TRUE(program["attribution"]["url"].is_string());
  ASSERT_EQ(program["voices"].size(), 1u);
  const json& voice = program["voices"][0];
  EXPECT_EQ(voice["name"], "default");
  EXPECT_EQ(voice["languages"], json::array({"en-US"}));  // BCP 47 casing of "en-us"
  EXPECT_EQ(voice["installed"], true);
  EXPECT_TRUE(voice["description"].is_string());
  EXPECT_TRUE(voice["attribution"]["name"].is_string());

  // ping → pong, and the connection serves more than one event.
  client.send(event("ping", {{"text", "hi"}}));
  auto pong = client.next();
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->type, "pong");
  EXPECT_EQ(pong->data["text"], "hi");
}

TEST_F(WyomingServerTest, SynthesizeSendsAudioStartChunksAndStop) {
  Running r;
  Client client(r.server.port());
  client.send(event("synthesize", {{"text", "Hello there."}, {"voice", {{"name", "default"}}}}));
  Audio audio = read_audio(client);
  ASSERT_FALSE(audio.error) << audio.error->data.dump();
  EXPECT_GE(audio.chunks, 1u);
  EXPECT_GT(audio.seconds(), 0.3);
  EXPECT_LT(audio.seconds(), 5.0);
  // A voice chosen by language only; the connection stays open for it.
  client.send(event("synthesize", {{"text", "Hi."}, {"voice", {{"language", "en_US"}}}}));
  audio = read_audio(client);
  ASSERT_FALSE(audio.error) << audio.error->data.dump();
  EXPECT_GT(audio.samples, 0u);
}

TEST_F(WyomingServerTest, StreamingSpeaksEachSentenceThenStops) {
  Running r;
  Client client(r.server.port());
  client.send(event("synthesize-start", {{"voice", {{"name", "default"}}}}));
  for (const char* piece : {"Hi ", "there. Yes", ", indeed."})
    client.send(event("synthesize-chunk", {{"text", piece}}));
  // The copy a streaming client sends for servers that do not stream: ignored.
  client.send(event("synthesize", {{"text", "Hi there. Yes, indeed."}}));
  client.send(event("synthesize-stop"));
  client.send(event("describe"));

  // "Hi there." once "Yes" shows it has ended, "Yes, indeed." at synthesize-stop: two streams.
  Audio first = read_audio(client);
  ASSERT_FALSE(first.error) << first.error->data.dump();
  Audio second = read_audio(client);
  ASSERT_FALSE(second.error) << second.error->data.dump();
  EXPECT_GT(first.seconds(), 0.2);
  EXPECT_GT(second.seconds(), 0.2 + 0.2);  // the pause between the sentences leads the second
  auto stopped = client.next();
  ASSERT_TRUE(stopped);
  EXPECT_EQ(stopped->type, "synthesize-stopped");
  auto info = client.next();  // nothing spoken for the ignored synthesize
  ASSERT_TRUE(info);
  EXPECT_EQ(info->type, "info");
  // After a stream, a plain synthesize is spoken again.
  client.send(event("synthesize", {{"text", "Ok."}}));
  EXPECT_FALSE(read_audio(client).error);
}

TEST_F(WyomingServerTest, BadRequestsGetAnErrorAndKeepTheConnection) {
  Running r;
  Client client(r.server.port());
  client.send(event("synthesize", {{"text", 5}}));
  auto e = expect_error(client, "bad_request");
  ASSERT_TRUE(e);
  EXPECT_NE(e->data["text"].get<std::string>().find("\"text\" is not a string"), std::string::npos);
  client.send(event("synthesize", {{"voice", {{"name", "default"}}}}));
  expect_error(client, "bad_request");  // no text
  client.send(event("synthesize", {{"text", "Hi."}, {"voice", {{"name", "nobody"}}}}));
  e = expect_error(client, "bad_request");
  ASSERT_TRUE(e);
  EXPECT_NE(e->data["text"].get<std::string>().find("default"), std::string::npos);  // served
  client.send(event("synthesize", {{"text", ""}}));
  expect_error(client, "bad_request");
  client.send(event("synthesize", {{"text", "<speak>unclosed"}, {"text_format", "ssml"}}));
  expect_error(client, "bad_input");
  client.send(event("synthesize-chunk", {{"text", "Hi."}}));
  expect_error(client, "bad_request");  // outside a stream
  client.send(event("synthesize-stop"));
  expect_error(client, "bad_request");

  // A stream whose start fails: its chunks are ignored, its stop still answered.
  client.send(event("synthesize-start", {{"voice", {{"name", "nobody"}}}}));
  expect_error(client, "bad_request");
  client.send(event("synthesize-chunk", {{"text", "Hi. There."}}));
  client.send(event("synthesize-stop"));
  auto stopped = client.next();
  ASSERT_TRUE(stopped);
  EXPECT_EQ(stopped->type, "synthesize-stopped");

  client.send(event("describe"));
  auto info = client.next();
  ASSERT_TRUE(info);
  EXPECT_EQ(info->type, "info");
  std::string metrics = r.service.metrics().prometheus(r.service.admission());
  EXPECT_NE(metrics.find("protocol=\"wyoming\",reason=\"bad_request\""), std::string::npos)
      << metrics;
}

TEST_F(WyomingServerTest, MalformedFramesGetAnErrorThenTheConnectionCloses) {
  Running r;
  {
    Client client(r.server.port());
    client.send(event("describe"));  // what came before the bad frame is still answered
    client.send_raw("{not json\n{\"type\": \"describe\"}\n");
    auto info = client.next();
    ASSERT_TRUE(info);
    EXPECT_EQ(info->type, "info");
    auto e = expect_error(client, "bad_frame");
    ASSERT_TRUE(e);
    EXPECT_NE(e->data["text"].get<std::string>().find("not JSON"), std::string::npos);
    EXPECT_TRUE(client.closed_by_server());
  }
  {
    Client client(r.server.port());
    client.send_raw("{\"type\": \"audio-chunk\", \"payload_length\": 999999999999}\n");
    auto e = expect_error(client, "bad_frame");
    ASSERT_TRUE(e);
    EXPECT_NE(e->data["text"].get<std::string>().find("more than the limit"), std::string::npos);
    EXPECT_TRUE(client.closed_by_server());
  }
  {
    Client client(r.server.port());
    client.send_raw("{\"type\": \"synthesize\", \"data_length\": 100}\n{\"text\"");
    client.shut_writing();  // truncated inside the data section
    auto e = expect_error(client, "bad_frame");
    ASSERT_TRUE(e);
    EXPECT_NE(e->data["text"].get<std::string>().find("truncated"), std::string::npos);
    EXPECT_TRUE(client.closed_by_server());
  }
  {
    Client client(r.server.port());
    client.send_raw(std::string(70 * 1024, 'x'));  // a header line past the 64 KiB limit
    expect_error(client, "bad_frame");
    EXPECT_TRUE(client.closed_by_server());
  }
  std::string metrics = r.service.metrics().prometheus(r.service.admission());
  EXPECT_NE(metrics.find("reason=\"bad_frame\"} 4"), std::string::npos) << metrics;
}

TEST_F(WyomingServerTest, BusyWorkersGiveAnError) {
  ServiceOptions options;
  options.workers = 1;
  options.queue = 0;
  Running r(options);
  SpeechRequest hold;
  hold.text = "Hi.";
  auto held = r.service.start(hold, "test");  // the only worker
  Client client(r.server.port());
  client.send(event("synthesize", {{"text", "Hello."}}));
  auto e = expect_error(client, "busy");
  // The streaming form too: its chunks fail, its stop is answered.
  client.send(event("synthesize-start"));
  client.send(event("synthesize-chunk", {{"text", "One. Two"}}));
  client.send(event("synthesize-chunk", {{"text", " three. Four."}}));
  client.send(event("synthesize-stop"));
  expect_error(client, "busy");
  auto stopped = client.next();
  ASSERT_TRUE(stopped);
  EXPECT_EQ(stopped->type, "synthesize-stopped");
  held.reset();
  client.send(event("synthesize", {{"text", "Hi."}}));
  Audio audio = read_audio(client);
  EXPECT_FALSE(audio.error);
  EXPECT_GT(audio.samples, 0u);
}

TEST_F(WyomingServerTest, AClientThatHangsUpCancelsItsSynthesis) {
  ServiceOptions options;
  options.workers = 1;
  options.queue = 0;
  Running r(options);
  {
    Client client(r.server.port());
    client.send(
        event("synthesize", {{"text",
                              "This is a rather long sentence that takes a while to say. "
                              "Here is another one, so that there is plenty left to make. "
                              "And a third one, for good measure, that nobody will hear."}}));
    auto start = client.next();
    ASSERT_TRUE(start);
    ASSERT_EQ(start->type, "audio-start");
    auto chunk = client.next();
    ASSERT_TRUE(chunk);
    EXPECT_EQ(chunk->type, "audio-chunk");
  }  // hangs up with the rest unread
  auto hung_up = Clock::now();
  while (r.service.admission().running() > 0 && seconds_since(hung_up) < 2 * kPrompt)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(r.service.admission().running(), 0);
  EXPECT_LT(seconds_since(hung_up), kPrompt) << "the synthesis was not cancelled promptly";
  std::string metrics = r.service.metrics().prometheus(r.service.admission());
  EXPECT_NE(metrics.find("protocol=\"wyoming\",reason=\"cancelled\""), std::string::npos)
      << metrics;

  // The worker is free and the server serves the next client.
  Client next(r.server.port());
  next.send(event("synthesize", {{"text", "Hi."}}));
  Audio audio = read_audio(next);
  EXPECT_FALSE(audio.error);
  EXPECT_GT(audio.samples, 0u);
}

TEST_F(WyomingServerTest, ConnectionsBeyondTheLimitGetAnError) {
  WyomingOptions options;
  options.max_connections = 1;
  Running r({}, options);
  Client first(r.server.port());
  first.send(event("describe"));
  ASSERT_TRUE(first.next());  // served, so counted
  Client second(r.server.port());
  expect_error(second, "busy");
  EXPECT_TRUE(second.closed_by_server());
  first.close();
  // Once the first has gone, a new one is served.
  for (auto start = Clock::now(); seconds_since(start) < 5;) {
    Client third(r.server.port());
    third.send(event("describe"));
    auto e = third.next();
    if (e && e->type == "info") return;
    // The first is still closing: the third was refused (an error, or closed unanswered while the
    // second's refusal is still being sent). Try again.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FAIL() << "no connection served after the first closed";
}

TEST_F(WyomingServerTest, AnIdleConnectionIsClosed) {
  WyomingOptions options;
  options.idle_timeout = std::chrono::seconds(1);
  Running r({}, options);
  Client client(r.server.port());
  auto start = Clock::now();
  client.send_raw("{\"type\": \"desc");  // a trickle of bytes is no event: it does not count
  expect_error(client, "timeout");
  EXPECT_TRUE(client.closed_by_server());
  EXPECT_GT(seconds_since(start), 0.9);
  EXPECT_LT(seconds_since(start), 4.0);
}

TEST_F(WyomingServerTest, StopEndsConnectionsPromptly) {
  Running r;
  Client idle(r.server.port());
  Client speaking(r.server.port());
  idle.send(event("describe"));
  ASSERT_TRUE(idle.next());
  speaking.send(event("synthesize", {{"text",
                                      "A sentence that is long enough to be cut off by the stop. "
                                      "And another one after it."}}));
  auto start_event = speaking.next();
  ASSERT_TRUE(start_event);
  auto start = Clock::now();
  r.server.stop();
  EXPECT_LT(seconds_since(start), kPrompt);
  EXPECT_EQ(r.service.admission().running(), 0);
  EXPECT_FALSE(idle.next(std::chrono::seconds(2)));
  // The speaking client gets the rest of what was sent, then (at most) an error, then the end.
  for (int i = 0; i < 10000; ++i) {
    auto e = speaking.next(std::chrono::seconds(2));
    if (!e) break;
    if (e->type == "error") {
      EXPECT_EQ(e->data.value("code", ""), "cancelled");
    }
  }
  Client late(r.server.port());
  EXPECT_FALSE(late.connected() && late.next(std::chrono::seconds(1)));
  r.server.stop();  // twice is fine
}

}  // namespace

namespace {

TEST_F(WyomingServerTest, AnApiKeyIsNeededInTheFirstEventBeforeAnyWork) {
  WyomingOptions options;
  options.api_key = "sesame";
  Running r({}, options);
  {  // no key: an error before any work, and the connection ends
    Client client(r.server.port());
    ASSERT_TRUE(client.connected());
    client.send(event("synthesize", {{"text", "Hello."}}));
    auto e = expect_error(client, "unauthorized");
    ASSERT_TRUE(e);
    EXPECT_NE(e->data.value("text", "").find("api_key"), std::string::npos);
    EXPECT_TRUE(client.closed_by_server());
  }
  {  // a wrong key, on describe: the same
    Client client(r.server.port());
    client.send(event("describe", {{"api_key", "open"}}));
    expect_error(client, "unauthorized");
    EXPECT_TRUE(client.closed_by_server());
  }
  {  // the key in the first event: that connection is served from then on
    Client client(r.server.port());
    client.send(event("describe", {{"api_key", "sesame"}}));
    auto info = client.next();
    ASSERT_TRUE(info);
    EXPECT_EQ(info->type, "info");
    client.send(event("synthesize", {{"text", "Yes."}}));
    EXPECT_GT(read_audio(client).samples, 0u);
  }
}

TEST_F(WyomingServerTest, AVoiceNameWithANulIsRefused) {
  Running r;
  Client client(r.server.port());
  client.send(event("synthesize",
                    {{"text", "Hello."}, {"voice", {{"name", std::string("default\0/x", 10)}}}}));
  auto e = expect_error(client, "bad_request");
  ASSERT_TRUE(e);
  EXPECT_NE(e->data.value("text", "").find("NUL"), std::string::npos) << e->data.dump();
}

}  // namespace
