// A GoogleTest fixture for the C API's suites: one random voice per suite (random_voice_suite.h),
// loaded through tts_voice_load with a stream on it for each test, and `pull`, which gathers all
// the audio of a text from a stream.
//
//   class CApi : public tts::testing_support::CApiStreamSuite<CApi> {};
//   TEST_F(CApi, X) { EXPECT_FALSE(pull(stream_, "Hello.").empty()); }
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "random_voice_suite.h"
#include "tts/tts.h"

namespace tts::testing_support {

template <class Suite>
class CApiStreamSuite : public RandomVoiceSuite<Suite> {
 protected:
  void SetUp() override {
    ASSERT_EQ(tts_voice_load(this->voice_path().c_str(), nullptr, &voice_), TTS_OK)
        << tts_last_error();
    ASSERT_EQ(tts_stream_create(voice_, &stream_), TTS_OK) << tts_last_error();
  }
  void TearDown() override {
    tts_stream_free(stream_);
    tts_voice_free(voice_);
  }
  // All the audio of `text` on `stream`, pulled.
  static std::vector<float> pull(tts_stream* stream, const char* text, uint64_t seed = 0,
                                 const char* language = nullptr) {
    tts_synthesis_options o;
    tts_default_synthesis_options(&o);
    EXPECT_EQ(o.language, nullptr);
    o.seed = seed;
    o.language = language;
    o.rate = 6.0f;  // the random voice's durations are long; sanitizer builds are slow
    std::vector<float> audio;
    EXPECT_EQ(tts_synthesize_start(stream, text, &o), TTS_OK) << tts_stream_last_error(stream);
    tts_chunk c;
    tts_chunk_init(&c);
    int rc;
    while ((rc = tts_synthesize_next(stream, &c)) == TTS_OK)
      audio.insert(audio.end(), c.samples, c.samples + c.count);
    EXPECT_EQ(rc, TTS_DONE) << tts_stream_last_error(stream);
    return audio;
  }
  tts_voice* voice_ = nullptr;
  tts_stream* stream_ = nullptr;
};

}  // namespace tts::testing_support
