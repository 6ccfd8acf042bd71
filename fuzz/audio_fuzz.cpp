// libFuzzer target for audio file reading (audio/audio_file.cpp, read_audio: libsndfile's
// decoders, the truncation checks, libsoxr resampling): the input is written to a file and read.
//
// Checks, besides the sanitizers': a read either throws AudioError naming the file or returns
// audio with a positive sample rate and finite samples; read at 16 kHz it is the same audio
// resampled (resample()), round(n * 16000 / rate) samples long. Nothing else may escape.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "tts/audio/audio_file.h"

using tts::audio::Audio;
using tts::audio::AudioError;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = tts::fuzz::scratch() / "input.wav";
  tts::fuzz::write_bytes(path, std::string_view(reinterpret_cast<const char*>(data), size));
  Audio audio;
  try {
    audio = tts::audio::read_audio(path);
  } catch (const AudioError& e) {
    TTS_FUZZ_CHECK(std::string(e.what()).find(path.string()) == 0);
    return 0;
  }
  TTS_FUZZ_CHECK(audio.sample_rate > 0);
  for (float x : audio.samples) TTS_FUZZ_CHECK(std::isfinite(x));

  // At most a second of audio at 16 kHz per input, so that a file claiming a 1 Hz rate is not
  // resampled into gigabytes (that is what it asks for, not a bug).
  constexpr int kRate = 16000;
  if (static_cast<double>(audio.samples.size()) * kRate / audio.sample_rate > 16000.0) return 0;
  Audio resampled;
  try {
    resampled = tts::audio::read_audio(path, kRate);
  } catch (const AudioError&) {
    tts::fuzz::fail("read_audio failed at 16 kHz on a file it read at its own rate");
  }
  TTS_FUZZ_CHECK(resampled.sample_rate == kRate);
  const auto expected = tts::audio::resample(audio.samples, audio.sample_rate, kRate);
  TTS_FUZZ_CHECK(resampled.samples == expected);
  TTS_FUZZ_CHECK(resampled.samples.size() == (audio.samples.empty()
                                                  ? 0
                                                  : static_cast<std::size_t>(std::llround(
                                                        static_cast<double>(audio.samples.size()) *
                                                        kRate / audio.sample_rate))));
  return 0;
}
