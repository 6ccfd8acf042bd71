#include "tts/vocoder/sample_codec.h"

#include "tts/kernels/mulaw.h"

namespace tts::vocoder {

std::vector<int32_t> encode_samples(const std::vector<float>& audio, int classes,
                                    float preemphasis) {
  std::vector<int32_t> out(audio.size());
  float previous = 0.0f;
  for (std::size_t i = 0; i < audio.size(); ++i) {
    out[i] = kernels::mulaw_encode(audio[i] - preemphasis * previous, classes);
    previous = audio[i];
  }
  return out;
}

SampleDecoder::SampleDecoder(const WaveNetConfig& config)
    : classes_(config.classes), preemphasis_(config.preemphasis) {}

float SampleDecoder::decode(int32_t cls) {
  previous_ = kernels::mulaw_decode(cls, classes_) + preemphasis_ * previous_;
  return previous_;
}

std::vector<float> decode_samples(const WaveNetConfig& config,
                                  const std::vector<int32_t>& classes) {
  SampleDecoder decoder(config);
  std::vector<float> out(classes.size());
  for (std::size_t i = 0; i < classes.size(); ++i) out[i] = decoder.decode(classes[i]);
  return out;
}

}  // namespace tts::vocoder
