// How audio becomes the WaveNet's classes and back: optional pre-emphasis, then μ-law.
//
// Pre-emphasis (y[n] = x[n] − α·x[n−1]) before quantisation, and the matching de-emphasis after
// sampling, shape the vocoder's noise: whatever noise the sampled classes carry is white in the
// pre-emphasised domain, and de-emphasis tilts it towards the low frequencies, where speech is loud
// and hides it, instead of spreading it over the quiet upper bands (the idea is LPCNet's).
#pragma once

#include <cstdint>
#include <vector>

#include "tts/vocoder/config.h"

namespace tts::vocoder {

// Classes of a whole clip (pre-emphasis starts from silence).
std::vector<int32_t> encode_samples(const std::vector<float>& audio, int classes,
                                    float preemphasis);

// Turns a stream of sampled classes into audio, keeping the de-emphasis state between calls, so
// a clip decoded block by block equals the clip decoded at once.
class SampleDecoder {
 public:
  explicit SampleDecoder(const WaveNetConfig& config);
  float decode(int32_t cls);

 private:
  int classes_;
  float preemphasis_;
  float previous_ = 0.0f;
};

// Audio of a whole clip of classes.
std::vector<float> decode_samples(const WaveNetConfig& config, const std::vector<int32_t>& classes);

}  // namespace tts::vocoder
