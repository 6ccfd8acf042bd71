// Contract of the C API (tts.h): arguments, order of calls, cancellation, a voice freed under an
// open stream, many threads on one voice, and the C99 compile of the header (c_api_header.c).
// (What the chunks carry: c_api_chunks_test.cpp.)
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "c_api_stream_suite.h"
#include "random_voice_suite.h"
#include "temp_folder.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_random.h"
#include "tts/frontend/symbol_table.h"
#include "tts/kernels/device.h"
#include "tts/kernels/mel.h"
#include "tts/tts.h"
#include "tts/vocoder/model_files.h"
#include "tts/vocoder/weights.h"

extern "C" long c_pull_samples(const char* voice_path, const char* text, unsigned long long seed);
extern "C" int c_callback(const char* voice_path, const char* text, int stop_after, int* chunks);

namespace fs = std::filesystem;

namespace {

const char kText[] = "Hello there. Yes.";

class CApi : public tts::testing_support::CApiStreamSuite<CApi> {};

TEST(CApiStatic, VersionAndStrerror) {
  EXPECT_STREQ(tts_version(), "0.1.0");
  for (int code = -12; code <= 2; ++code) {
    ASSERT_NE(tts_strerror(code), nullptr);
    EXPECT_GT(std::string(tts_strerror(code)).size(), 3u);
  }
  EXPECT_STREQ(tts_strerror(TTS_ERR_CANCELLED), "cancelled");
}

TEST(CApiStatic, NullArgumentsAreRejectedNotCrashed) {
  tts_voice* voice = reinterpret_cast<tts_voice*>(0x1);
  EXPECT_EQ(tts_voice_load(nullptr, nullptr, &voice), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(voice, nullptr);
  EXPECT_EQ(tts_voice_load("x", nullptr, nullptr), TTS_ERR_INVALID_ARGUMENT);
  tts_stream* stream = nullptr;
  EXPECT_EQ(tts_stream_create(nullptr, &stream), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tts_last_error()).find("voice is NULL"), std::string::npos);
  EXPECT_EQ(tts_synthesize_start(nullptr, "x", nullptr), TTS_ERR_INVALID_ARGUMENT);
  tts_chunk c;
  tts_chunk_init(&c);
  EXPECT_EQ(tts_synthesize_next(nullptr, &c), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tts_synthesize(nullptr, "x", nullptr, nullptr, nullptr), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tts_stream_cancel(nullptr), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tts_voice_get_info(nullptr, nullptr), TTS_ERR_INVALID_ARGUMENT);
  tts_stream_free(nullptr);
  tts_voice_free(nullptr);
  tts_default_synthesis_options_sized(nullptr, sizeof(tts_synthesis_options));
  tts_default_voice_options_sized(nullptr, sizeof(tts_voice_options));
  tts_chunk_init_sized(nullptr, sizeof(tts_chunk));
  (tts_default_synthesis_options)(nullptr);
  (tts_default_voice_options)(nullptr);
  (tts_chunk_init)(nullptr);
}

// The initialisers write the caller's size, not the library's: a program built against an older
// header (a smaller struct) is never written past its end, and gets its own struct_size back.
TEST(CApiStatic, InitialisersWriteOnlyTheCallersStruct) {
  const std::size_t v1_chunk = offsetof(tts_chunk, sentence_offset) + sizeof(std::size_t);
  unsigned char bytes[sizeof(tts_chunk) + 16];
  for (std::size_t size : {v1_chunk, offsetof(tts_chunk, marks), sizeof(tts_chunk)}) {
    std::memset(bytes, 0xAB, sizeof bytes);
    auto* chunk = reinterpret_cast<tts_chunk*>(bytes);
    tts_chunk_init_sized(chunk, size);
    EXPECT_EQ(chunk->struct_size, size);
    for (std::size_t i = sizeof(std::size_t); i < size; ++i) ASSERT_EQ(bytes[i], 0) << i;
    for (std::size_t i = size; i < sizeof bytes; ++i) ASSERT_EQ(bytes[i], 0xAB) << size << " " << i;
  }
  // The first version's entry point fills the first version's chunk.
  std::memset(bytes, 0xAB, sizeof bytes);
  (tts_chunk_init)(reinterpret_cast<tts_chunk*>(bytes));
  EXPECT_EQ(reinterpret_cast<tts_chunk*>(bytes)->struct_size, v1_chunk);
  for (std::size_t i = v1_chunk; i < sizeof bytes; ++i) ASSERT_EQ(bytes[i], 0xAB) << i;

  // A struct larger than the library's (a newer header): the unknown tail is cleared, the known
  // fields get their defaults, and the library accepts it (its new fields are unset).
  struct Newer {
    tts_synthesis_options known;
    std::uint64_t appended[2];
  } newer;
  std::memset(&newer, 0xAB, sizeof newer);
  tts_default_synthesis_options_sized(&newer.known, sizeof newer);
  EXPECT_EQ(newer.known.struct_size, sizeof newer);
  EXPECT_EQ(newer.known.rate, 1.0f);
  EXPECT_EQ(newer.known.chunk_samples, 2048u);
  EXPECT_EQ(newer.appended[0], 0u);
  EXPECT_EQ(newer.appended[1], 0u);
  // Through the header's macro: sizeof the caller's struct.
  tts_synthesis_options o;
  std::memset(&o, 0xAB, sizeof o);
  tts_default_synthesis_options(&o);
  EXPECT_EQ(o.struct_size, sizeof o);
  EXPECT_EQ(o.threads, 1);
  tts_voice_options vo;
  tts_default_voice_options(&vo);
  EXPECT_EQ(vo.struct_size, sizeof vo);
  EXPECT_EQ(vo.device, TTS_DEVICE_CPU);
  // Too small to hold struct_size: nothing is written.
  std::memset(bytes, 0xAB, sizeof bytes);
  tts_chunk_init_sized(reinterpret_cast<tts_chunk*>(bytes), 4);
  for (unsigned char b : bytes) ASSERT_EQ(b, 0xAB);
}

// A FIFO (or a device, or a socket) named voice.json is refused at once, naming what it is: the
// load never opens it for reading in a way that waits for a writer. If the load does wait, the test
// opens the FIFO's other end itself, so that it ends (and fails) instead of hanging.
TEST(CApiStatic, VoiceJsonThatIsAFifoIsRefusedAtOnce) {
  const tts::testing_support::TempFolder folder;
  const fs::path fifo = folder / "voice.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  auto load = std::async(std::launch::async, [&] {
    tts_voice* voice = nullptr;
    const int status = tts_voice_load(folder.path().c_str(), nullptr, &voice);
    tts_voice_free(voice);
    return std::make_pair(status, std::string(tts_last_error()));
  });
  if (load.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    const int writer = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // lets the blocked open return
    if (writer >= 0) close(writer);
    ADD_FAILURE() << "tts_voice_load waited on a FIFO named voice.json";
  }
  const auto [status, message] = load.get();
  EXPECT_EQ(status, TTS_ERR_BAD_VOICE) << message;
  EXPECT_NE(message.find("FIFO"), std::string::npos) << message;
  EXPECT_NE(message.find("voice.json"), std::string::npos) << message;
}

TEST(CApiStatic, MissingVoiceIsNotFoundAndNamed) {
  tts_voice* voice = nullptr;
  EXPECT_EQ(tts_voice_load("no-such-voice-anywhere", nullptr, &voice), TTS_ERR_NOT_FOUND);
  EXPECT_EQ(voice, nullptr);
  EXPECT_NE(std::string(tts_last_error()).find("no-such-voice-anywhere"), std::string::npos);
  EXPECT_EQ(tts_voice_load("/nonexistent/voice", nullptr, &voice), TTS_ERR_NOT_FOUND);
}

TEST_F(CApi, DamagedVoiceIsBadVoice) {
  const fs::path broken = folder() / "broken";
  fs::remove_all(broken);
  fs::copy(voice_path(), broken, fs::copy_options::recursive);
  fs::resize_file(broken / "vocoder" / "vocoder.safetensors", 100);
  tts_voice* voice = nullptr;
  EXPECT_EQ(tts_voice_load(broken.c_str(), nullptr, &voice), TTS_ERR_BAD_VOICE);
  EXPECT_NE(std::string(tts_last_error()).find("truncated"), std::string::npos) << tts_last_error();
}

TEST_F(CApi, OptionsStructSizeIsChecked) {
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.struct_size = offsetof(tts_synthesis_options, chunk_samples);  // smaller than the first version
  EXPECT_EQ(tts_synthesize_start(stream_, "x", &o), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tts_stream_last_error(stream_)).find("struct_size"), std::string::npos);
  // The first version's struct, without `language`: what lies past its size is not read.
  tts_default_synthesis_options(&o);
  o.struct_size = offsetof(tts_synthesis_options, language);
  o.language = "xx-not-spoken";
  EXPECT_EQ(tts_synthesize_start(stream_, "x", &o), TTS_OK) << tts_stream_last_error(stream_);
  tts_stream_cancel(stream_);
  tts_default_synthesis_options(&o);
  o.rate = -1.0f;
  EXPECT_EQ(tts_synthesize_start(stream_, "x", &o), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tts_stream_last_error(stream_)).find("rate"), std::string::npos);
}

// TTS_DEVICE_CUDA samples on the GPU where there is one: the same seed gives the CPU's audio but
// after a near-tie draw (vocoder/include/tts/vocoder/sampler_interface.h), so at least half the
// samples agree, as in the sampler's own parity test (SameSeedSameUniformsAsCpu; on the H200 all
// did). The test voice's vocoder has 8 residual channels: the GPU samples it at 16, with zero
// channels added. Without one (or without the backend) the load is refused, saying why and what to
// use instead.
TEST_F(CApi, CudaDeviceSynthesisesOnAGpuAndIsRefusedClearlyWithoutOne) {
  tts_voice_options vo;
  tts_default_voice_options(&vo);
  vo.device = TTS_DEVICE_CUDA;
  tts_voice* v = nullptr;
  if (!tts::kernels::cuda_backend_built() || tts::kernels::cuda_device_count() == 0) {
    EXPECT_EQ(tts_voice_load(voice_path().c_str(), &vo, &v), TTS_ERR_UNSUPPORTED);
    EXPECT_EQ(v, nullptr);
    EXPECT_NE(std::string(tts_last_error()).find("CUDA"), std::string::npos) << tts_last_error();
    if (tts::kernels::cuda_backend_built()) {
      EXPECT_NE(std::string(tts_last_error()).find("TTS_DEVICE_CPU"), std::string::npos);
    }
    GTEST_SKIP() << "no CUDA device: checked the refusal only";
  }
  ASSERT_EQ(tts_voice_load(voice_path().c_str(), &vo, &v), TTS_OK) << tts_last_error();
  tts_stream* gpu = nullptr;
  ASSERT_EQ(tts_stream_create(v, &gpu), TTS_OK) << tts_last_error();
  const std::vector<float> on_gpu = pull(gpu, "A short sentence.", 3);
  const std::vector<float> on_cpu = pull(stream_, "A short sentence.", 3);
  tts_stream_free(gpu);
  tts_voice_free(v);
  ASSERT_EQ(on_gpu.size(), on_cpu.size());
  std::size_t same = 0;
  for (std::size_t i = 0; i < on_gpu.size(); ++i) same += on_gpu[i] == on_cpu[i] ? 1 : 0;
  EXPECT_GE(static_cast<double>(same), 0.5 * static_cast<double>(on_cpu.size()));
}

// A voice whose vocoder the GPU sampler cannot take (here the trainer's widest: 128 residual and
// 512 skip channels) is refused by the load itself, with TTS_ERR_UNSUPPORTED and a message naming
// the limit, on every machine (the shape is checked before CUDA is touched); never accepted only to
// fail at its first synthesis. The CPU takes it.
TEST_F(CApi, CudaDeviceRefusesAVocoderTheGpuCannotSampleWhenLoading) {
  const fs::path wide = folder() / "wide";
  fs::remove_all(wide);
  tts::engine::create_random_voice(wide, {});
  tts::vocoder::WaveNetConfig c;  // the features of the random voice (tts::kernels::MelConfig)
  c.layers = 4;
  c.dilation_cycle = 4;
  c.residual_channels = 128;
  c.skip_channels = 512;
  tts::vocoder::WaveNetWeights weights(c);
  weights.initialise(5);
  fs::remove_all(wide / "vocoder");
  tts::vocoder::save_vocoder(wide / "vocoder", weights, tts::kernels::MelConfig{});
  tts::engine::VoiceManifest manifest;
  manifest.name = "wide";
  tts::engine::write_voice_manifest(wide, manifest, tts::frontend::SymbolTable::default_table());

  tts_voice_options vo;
  tts_default_voice_options(&vo);
  vo.device = TTS_DEVICE_CUDA;
  tts_voice* v = reinterpret_cast<tts_voice*>(0x1);
  EXPECT_EQ(tts_voice_load(wide.c_str(), &vo, &v), TTS_ERR_UNSUPPORTED);
  EXPECT_EQ(v, nullptr);
  const std::string message = tts_last_error();
  for (const char* part :
       {"TTS_DEVICE_CUDA cannot sample this voice",
        "up to 64 layers, 64 residual channels and 256 skip channels",
        "this one has 4 layers, 128 residual channels and 512 skip channels", "TTS_DEVICE_CPU"})
    EXPECT_NE(message.find(part), std::string::npos) << part << " in: " << message;
  tts_voice_free(v);

  vo.device = TTS_DEVICE_CPU;
  ASSERT_EQ(tts_voice_load(wide.c_str(), &vo, &v), TTS_OK) << tts_last_error();
  tts_voice_free(v);
}

// A program built against a newer header, whose struct has fields appended: accepted while those
// fields are unset (zero), refused, naming the byte, when one is set.
TEST_F(CApi, ALargerOptionsStructIsReadWhileItsNewFieldsAreUnset) {
  struct Newer {
    tts_synthesis_options known;
    std::uint64_t appended[2];
  } newer{};
  tts_default_synthesis_options(&newer.known);
  newer.known.struct_size = sizeof newer;
  newer.known.rate = 5.0f;
  ASSERT_EQ(tts_synthesize_start(stream_, "Hello.", &newer.known), TTS_OK)
      << tts_stream_last_error(stream_);
  tts_chunk c;
  tts_chunk_init(&c);
  int rc;
  while ((rc = tts_synthesize_next(stream_, &c)) == TTS_OK) {
  }
  EXPECT_EQ(rc, TTS_DONE);
  newer.appended[1] = 7;
  EXPECT_EQ(tts_synthesize_start(stream_, "Hello.", &newer.known), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tts_stream_last_error(stream_)).find("does not know"), std::string::npos)
      << tts_stream_last_error(stream_);
  tts_voice_options vo;
  tts_default_voice_options(&vo);
  vo.struct_size = 2;
  tts_voice* v = nullptr;
  EXPECT_EQ(tts_voice_load(voice_path().c_str(), &vo, &v), TTS_ERR_INVALID_ARGUMENT);
}

// Misuse the header forbids gets an error, not an abort or a hang: a callback that calls back into
// its own stream, and a second thread on a stream that is in a call.
TEST_F(CApi, ACallbackCallingBackIntoItsStreamGetsAStateError) {
  struct Seen {
    tts_stream* stream = nullptr;
    int nested = 1;
    std::string message;
  } seen;
  seen.stream = stream_;
  auto callback = [](const tts_chunk*, void* user) -> int {
    auto* s = static_cast<Seen*>(user);
    s->nested = tts_synthesize_start(s->stream, "Again.", nullptr);
    s->message = tts_last_error();
    return 0;
  };
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.rate = 5.0f;
  EXPECT_EQ(tts_synthesize(stream_, "Hello.", &o, callback, &seen), TTS_OK);
  EXPECT_EQ(seen.nested, TTS_ERR_STATE);
  EXPECT_NE(seen.message.find("already in a call"), std::string::npos) << seen.message;
}

TEST_F(CApi, ASecondThreadOnABusyStreamGetsAStateError) {
  struct Shared {
    tts_stream* stream;
    std::atomic<bool> inside{false}, tried{false};
    std::atomic<int> other{1};
  } shared{stream_};
  auto callback = [](const tts_chunk*, void* user) -> int {
    auto* s = static_cast<Shared*>(user);
    s->inside = true;
    while (!s->tried) std::this_thread::yield();
    return 0;
  };
  std::thread second([&] {
    while (!shared.inside) std::this_thread::yield();
    shared.other = tts_synthesize_start(stream_, "Intruder.", nullptr);
    tts_chunk c;
    tts_chunk_init(&c);
    if (shared.other == TTS_ERR_STATE) shared.other = tts_synthesize_next(stream_, &c);
    shared.tried = true;
  });
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.rate = 5.0f;
  EXPECT_EQ(tts_synthesize(stream_, "Hello.", &o, callback, &shared), TTS_OK);
  second.join();
  EXPECT_EQ(shared.other, TTS_ERR_STATE);
}

TEST_F(CApi, CallsOutOfOrder) {
  tts_chunk c;
  tts_chunk_init(&c);
  EXPECT_EQ(tts_synthesize_next(stream_, &c), TTS_ERR_STATE);
  EXPECT_NE(std::string(tts_stream_last_error(stream_)).find("before"), std::string::npos);
  EXPECT_EQ(tts_stream_cancel(stream_), TTS_OK);  // nothing running: a no-op
  EXPECT_EQ(tts_synthesize_start(stream_, nullptr, nullptr), TTS_ERR_INVALID_ARGUMENT);
  c.struct_size = 4;
  EXPECT_EQ(tts_synthesize_start(stream_, "Hi.", nullptr), TTS_OK);
  EXPECT_EQ(tts_synthesize_next(stream_, &c), TTS_ERR_INVALID_ARGUMENT);
  tts_chunk_init(&c);
  while (tts_synthesize_next(stream_, &c) == TTS_OK) {
  }
  EXPECT_EQ(tts_synthesize_next(stream_, &c), TTS_DONE);  // stays done
  // Restarting in the middle of a synthesis cancels the old one.
  EXPECT_EQ(tts_synthesize_start(stream_, kText, nullptr), TTS_OK);
  EXPECT_EQ(tts_synthesize_next(stream_, &c), TTS_OK);
  EXPECT_EQ(pull(stream_, kText), pull(stream_, kText));
}

TEST_F(CApi, VoiceInfo) {
  tts_voice_info info;
  info.struct_size = sizeof info;
  ASSERT_EQ(tts_voice_get_info(voice_, &info), TTS_OK);
  EXPECT_STREQ(info.name, "random");
  EXPECT_STREQ(info.language, "en-us");
  EXPECT_EQ(info.sample_rate, 16000);
  EXPECT_STREQ(info.licence, "CC0-1.0");
  EXPECT_EQ(std::string(info.path), voice_path().string());
  EXPECT_GT(info.size_bytes, 0u);
}

// tts_synthesis_options.language: a language the voice speaks (its tag or primary subtag) reads
// the text in it; one it does not speak is an invalid argument naming it and the voice's, and so
// is an empty tag (NULL, not "", is the voice's first language).
TEST_F(CApi, TheSynthesisLanguageMustBeOneTheVoiceSpeaks) {
  const std::vector<float> plain = pull(stream_, kText, 4);
  EXPECT_EQ(pull(stream_, kText, 4, "en"), plain);
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.language = "es-MX";
  EXPECT_EQ(tts_synthesize_start(stream_, kText, &o), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tts_stream_last_error(stream_), "language \"es-MX\": voice \"random\" speaks en-US");
  o.language = "";
  EXPECT_EQ(tts_synthesize_start(stream_, kText, &o), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tts_stream_last_error(stream_),
               "language tag \"\" is empty: leave it out for the voice's first language");
}

TEST_F(CApi, PullAndCallbackAndTheCHeaderAgree) {
  const std::vector<float> pulled = pull(stream_, kText, 7);
  EXPECT_EQ(c_pull_samples(voice_path().c_str(), kText, 7), static_cast<long>(pulled.size()));
  int chunks = 0;
  EXPECT_EQ(c_callback(voice_path().c_str(), kText, 0, &chunks), TTS_OK);
  EXPECT_GT(chunks, 1);
  EXPECT_EQ(c_callback(voice_path().c_str(), kText, 1, &chunks), TTS_ERR_CANCELLED);
  EXPECT_EQ(chunks, 1);
  EXPECT_EQ(pull(stream_, kText, 7), pulled);
}

TEST_F(CApi, BadTextIsBadInput) {
  ASSERT_EQ(tts_synthesize_start(stream_, "Fine. \xc3\x28 not fine.", nullptr), TTS_OK);
  tts_chunk c;
  tts_chunk_init(&c);
  int rc;
  while ((rc = tts_synthesize_next(stream_, &c)) == TTS_OK) {
  }
  EXPECT_EQ(rc, TTS_ERR_BAD_INPUT);
  EXPECT_NE(std::string(tts_stream_last_error(stream_)).find("UTF-8"), std::string::npos);
  EXPECT_EQ(tts_synthesize_next(stream_, &c), TTS_DONE);
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.ssml = 1;
  EXPECT_EQ(
      tts_synthesize(
          stream_, "<speak><s>unclosed", &o, [](const tts_chunk*, void*) { return 0; }, nullptr),
      TTS_ERR_BAD_INPUT);
}

TEST_F(CApi, CancelFromAnotherThread) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "This goes on and on. ";
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.chunk_samples = 64;
  ASSERT_EQ(tts_synthesize_start(stream_, text.c_str(), &o), TTS_OK);
  tts_chunk c;
  tts_chunk_init(&c);
  ASSERT_EQ(tts_synthesize_next(stream_, &c), TTS_OK);
  std::thread other([this] { EXPECT_EQ(tts_stream_cancel(stream_), TTS_OK); });
  int rc;
  while ((rc = tts_synthesize_next(stream_, &c)) == TTS_OK) {
  }
  other.join();
  EXPECT_EQ(rc, TTS_ERR_CANCELLED);
  EXPECT_FALSE(pull(stream_, "Still usable.").empty());
}

TEST_F(CApi, VoiceFreedWhileAStreamIsOpenKeepsTheStreamWorking) {
  const std::vector<float> before = pull(stream_, kText, 3);
  tts_voice_free(voice_);
  voice_ = nullptr;
  EXPECT_EQ(pull(stream_, kText, 3), before);
}

TEST_F(CApi, ManyThreadsEachWithItsOwnStreamOnOneVoice) {
  const std::vector<float> reference = pull(stream_, "Threads share.", 11);
  constexpr int kThreads = 4;
  std::atomic<int> matches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      tts_stream* s = nullptr;
      if (tts_stream_create(voice_, &s) != TTS_OK) return;
      for (int round = 0; round < 2; ++round)
        if (pull(s, "Threads share.", 11) == reference) ++matches;
      tts_stream_free(s);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(matches.load(), 2 * kThreads);
}

}  // namespace
