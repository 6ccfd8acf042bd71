// The Wyoming server on the bundled voice, through a real TCP socket: describe, synthesize, the
// streaming form, errors that keep the connection and errors that end it, busy workers, the
// connection limit, idle and slow clients, the first-event and idle timeouts, a client that hangs
// up mid-synthesis, a stream cut short, and a prompt stop().
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <memory>
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

constexpr const char* kLongText =
    "This is a rather long sentence that takes a while to say. "
    "Here is another one, so that there is plenty left to make. "
    "And a third one, for good measure, that nobody will hear.";

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

// A stream cut by the service's shutdown (the drain time over) ends with `error`, not with an
// audio-stop that would claim it complete.
TEST_F(WyomingServerTest, AStreamCutShortEndsWithAnErrorNotAnAudioStop) {
  Running r;
  Client client(r.server.port());
  client.send(event("synthesize", {{"text",
                                    "A sentence that is long enough to be cut off by the stop. "
                                    "And another one after it, and a third to make sure."}}));
  auto start = client.next();
  ASSERT_TRUE(start);
  ASSERT_EQ(start->type, "audio-start");
  EXPECT_FALSE(r.service.shutdown(Clock::now()));  // cancels the running synthesis
  std::optional<Event> last;
  for (int i = 0; i < 10000; ++i) {
    auto e = client.next(std::chrono::seconds(5));
    if (!e) break;
    EXPECT_NE(e->type, "audio-stop");
    last = e;
  }
  ASSERT_TRUE(last);
  EXPECT_EQ(last->type, "error");
  EXPECT_EQ(last->data.value("code", ""), "cancelled") << last->data.dump();
}

TEST_F(WyomingServerTest, AClientThatHangsUpCancelsItsSynthesis) {
  ServiceOptions options;
  options.workers = 1;
  options.queue = 0;
  Running r(options);
  {
    Client client(r.server.port());
    client.send(event("synthesize", {{"text", kLongText}}));
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

TEST_F(WyomingServerTest, BeyondTheLimitTheLongestIdleConnectionIsClosed) {
  WyomingOptions options;
  options.max_connections = 2;
  Running r({}, options);
  Client older(r.server.port());
  older.send(event("describe"));
  ASSERT_TRUE(older.next());  // served, then idle
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Client newer(r.server.port());
  newer.send(event("describe"));
  ASSERT_TRUE(newer.next());
  // A third: the older idle one makes room, told why; the newer one is still served.
  Client third(r.server.port());
  third.send(event("describe"));
  auto info = third.next();
  ASSERT_TRUE(info);
  EXPECT_EQ(info->type, "info");
  expect_error(older, "busy");
  EXPECT_TRUE(older.closed_by_server());
  newer.send(event("ping", {{"text", "still here"}}));
  auto pong = newer.next();
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->type, "pong");
}

TEST_F(WyomingServerTest, WhenEveryConnectionIsSpeakingANewOneIsBusy) {
  WyomingOptions options;
  options.max_connections = 1;
  Running r({}, options);
  Client speaking(r.server.port());
  speaking.send(event("synthesize", {{"text", kLongText}}));
  auto start = speaking.next();
  ASSERT_TRUE(start);
  ASSERT_EQ(start->type, "audio-start");
  Client second(r.server.port());
  expect_error(second, "busy");
  EXPECT_TRUE(second.closed_by_server());
  std::string metrics = r.service.metrics().prometheus(r.service.admission());
  EXPECT_NE(metrics.find("protocol=\"wyoming\",reason=\"connections\""), std::string::npos)
      << metrics;
}

// Idle sockets and clients that trickle bytes hold no thread and no place a real client needs:
// with more of them open than there are connection threads, describe and synthesize are
// answered at once.
TEST_F(WyomingServerTest, IdleAndSlowClientsDenyNoOne) {
  WyomingOptions options;
  options.connection_threads = 4;
  Running r({}, options);
  std::vector<std::unique_ptr<Client>> idle, slow;
  for (int i = 0; i < 48; ++i) {
    idle.push_back(std::make_unique<Client>(r.server.port()));
    ASSERT_TRUE(idle.back()->connected());
  }
  for (int i = 0; i < 16; ++i) {
    slow.push_back(std::make_unique<Client>(r.server.port()));
    slow.back()->send_raw("{\"type\": \"desc");  // never finished
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (int round = 0; round < 3; ++round) {
    auto start = Clock::now();
    Client client(r.server.port());
    client.send(event("describe"));
    auto info = client.next(std::chrono::seconds(5));
    ASSERT_TRUE(info);
    EXPECT_EQ(info->type, "info") << info->data.dump();
    EXPECT_LT(seconds_since(start), TTS_SANITIZER_BUILD ? 3.0 : 1.0);
    for (auto& s : slow) s->send_raw("r");  // still trickling
  }
  Client speaker(r.server.port());
  speaker.send(event("synthesize", {{"text", "Hi."}}));
  Audio audio = read_audio(speaker);
  ASSERT_FALSE(audio.error) << audio.error->data.dump();
  EXPECT_GT(audio.samples, 0u);
}

TEST_F(WyomingServerTest, AConnectionWithoutAFirstEventIsClosedAtItsDeadline) {
  WyomingOptions options;
  options.first_event_timeout = std::chrono::seconds(1);
  Running r({}, options);
  Client silent(r.server.port());
  Client served(r.server.port());
  auto start = Clock::now();
  served.send(event("describe"));
  ASSERT_TRUE(served.next());
  auto e = expect_error(silent, "timeout");
  ASSERT_TRUE(e);
  EXPECT_NE(e->data.value("text", "").find("of connecting"), std::string::npos) << e->data.dump();
  EXPECT_TRUE(silent.closed_by_server());
  EXPECT_GT(seconds_since(start), 0.9);
  EXPECT_LT(seconds_since(start), 4.0);
  // The one that sent its first event in time waits idle_timeout (60 s) for its next.
  served.send(event("ping", {{"text", "x"}}));
  auto pong = served.next();
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->type, "pong");
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
  // The speaking client gets the rest of what was sent, then an error, never an audio-stop
  // claiming its stream complete, then the end.
  std::optional<Event> last;
  for (int i = 0; i < 10000; ++i) {
    auto e = speaking.next(std::chrono::seconds(2));
    if (!e) break;
    EXPECT_NE(e->type, "audio-stop");
    last = e;
  }
  ASSERT_TRUE(last);
  EXPECT_EQ(last->type, "error");
  EXPECT_EQ(last->data.value("code", ""), "cancelled") << last->data.dump();
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
