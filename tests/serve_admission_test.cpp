// Admission control and the OpenAI request parser of `tts serve`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "tts/serve/admission.h"
#include "tts/serve/openai_speech.h"

using namespace tts::serve;
using namespace std::chrono_literals;

namespace {

TEST(Admission, RunsWorkersQueuesTheNextAndRefusesTheRest) {
  Admission a(2, 1);
  auto t1 = a.try_enter(), t2 = a.try_enter(), t3 = a.try_enter();
  ASSERT_TRUE(t1 && t2 && t3);
  EXPECT_EQ(a.try_enter(), nullptr);  // 2 workers + 1 queued: full
  auto soon = std::chrono::steady_clock::now() + 1s;
  EXPECT_TRUE(t1->wait_for_worker(soon));
  EXPECT_TRUE(t2->wait_for_worker(soon));
  EXPECT_EQ(a.running(), 2);
  EXPECT_EQ(a.waiting(), 1);
  // The third waits until a worker is free, and times out when none is.
  EXPECT_FALSE(t3->wait_for_worker(std::chrono::steady_clock::now() + 20ms));
  std::thread release([&] {
    std::this_thread::sleep_for(30ms);
    t1.reset();
  });
  EXPECT_TRUE(t3->wait_for_worker(std::chrono::steady_clock::now() + 5s));
  release.join();
  EXPECT_EQ(a.running(), 2);
  EXPECT_EQ(a.waiting(), 0);
  auto t4 = a.try_enter();  // a queue place again
  EXPECT_NE(t4, nullptr);
}

TEST(Admission, CloseRefusesNewTicketsAndWakesWaitingOnes) {
  Admission a(1, 1);
  auto running = a.try_enter();
  ASSERT_TRUE(running->wait_for_worker(std::chrono::steady_clock::now()));
  auto waiting = a.try_enter();
  std::thread closer([&] {
    std::this_thread::sleep_for(20ms);
    a.close();
  });
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(waiting->wait_for_worker(start + 10s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  closer.join();
  EXPECT_EQ(a.try_enter(), nullptr);
  EXPECT_FALSE(a.wait_idle(std::chrono::steady_clock::now() + 10ms));
  waiting.reset();
  running.reset();
  EXPECT_TRUE(a.wait_idle(std::chrono::steady_clock::now() + 10ms));
}

TEST(Admission, RefusesBadBounds) {
  EXPECT_THROW(Admission(0, 1), std::invalid_argument);
  EXPECT_THROW(Admission(1, -1), std::invalid_argument);
}

TEST(OpenAiSpeech, ReadsTheFieldsClientsSend) {
  auto s = parse_openai_speech(
      R"({"model":"tts-1","input":"Hello.","voice":"alloy","response_format":"wav","speed":1.5})");
  EXPECT_EQ(s.request.text, "Hello.");
  EXPECT_EQ(s.request.voice, "alloy");
  EXPECT_EQ(s.format, "wav");
  EXPECT_FLOAT_EQ(s.request.rate, 1.5f);
  auto d = parse_openai_speech(R"({"input":"Hi","instructions":"cheerful"})");
  EXPECT_EQ(d.format, "mp3");  // OpenAI's default
  EXPECT_FLOAT_EQ(d.request.rate, 1.0f);
  EXPECT_FLOAT_EQ(d.request.pitch_semitones, 0.0f);
  EXPECT_FLOAT_EQ(parse_openai_speech(R"({"input":"Hi","pitch":-3.5})").request.pitch_semitones,
                  -3.5f);
  // Ours, not OpenAI's: the text's language, which chooses a voice when none is named.
  EXPECT_EQ(parse_openai_speech(R"({"input":"Hola","language":"es-MX"})").request.language,
            "es-MX");
}

void expect_refused(const std::string& body, const std::string& words) {
  try {
    parse_openai_speech(body);
    ADD_FAILURE() << "accepted " << body;
  } catch (const RequestError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(OpenAiSpeech, NamesWhatIsWrong) {
  expect_refused("", "not valid JSON");
  expect_refused("{\"input\": \"a\"", "not valid JSON");
  expect_refused("[1,2]", "JSON object");
  expect_refused("660e966", "not valid JSON");  // a number JSON cannot hold (found by the fuzzer)
  expect_refused("{}", "input: required");
  expect_refused(R"({"input": 5})", "input: must be a string");
  expect_refused(R"({"input": "a", "speed": "fast"})", "speed: must be a number");
  expect_refused(R"({"input": "a", "speed": 0.1})", "speed: must be within 0.25 and 4.0");
  expect_refused(R"({"input": "a", "speed": 5})", "speed");
  expect_refused(R"({"input": "a", "pitch": "up"})", "pitch: must be a number");
  expect_refused(R"({"input": "a", "pitch": 25})", "pitch: must be within -24 and 24");
  expect_refused(R"({"input": "a", "language": 5})", "language: must be a string");
  // Empty, or with a NUL, in the words of the command, the C API and Python.
  expect_refused(R"({"input": "a", "language": ""})", "language: language tag \"\" is empty");
  expect_refused(R"({"input": "a", "language": "es\u0000x"})", "holds a NUL character");
  expect_refused(R"({"input": "a", "voise": "x"})", "unknown field \"voise\"");
  expect_refused(R"({"input": "a", "stream_format": "sse"})", "stream_format");
  expect_refused("{\"input\": \"\xff\xfe\"}", "not valid JSON");  // not UTF-8
}

TEST(OpenAiSpeech, ErrorObjectIsOpenAisShapeEvenForBadBytes) {
  auto j = nlohmann::json::parse(openai_error_json("bad \xff byte", "invalid_request_error"));
  EXPECT_EQ(j["error"]["type"], "invalid_request_error");
  EXPECT_TRUE(j["error"]["message"].is_string());
  EXPECT_TRUE(j["error"]["param"].is_null());
}

}  // namespace
