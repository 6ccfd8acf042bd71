#include "tts/kernels/mulaw.h"

#include <algorithm>
#include <cmath>

namespace tts::kernels {

int32_t mulaw_encode(float sample, int classes) {
  const float mu = static_cast<float>(classes - 1);
  const float x = std::clamp(sample, -1.0f, 1.0f);
  const float y = std::copysign(std::log1p(mu * std::fabs(x)) / std::log1p(mu), x);  // in [-1, 1]
  const auto cls = static_cast<int32_t>(std::lround((y + 1.0f) * 0.5f * mu));
  return std::clamp<int32_t>(cls, 0, classes - 1);
}

float mulaw_decode(int32_t cls, int classes) {
  const float mu = static_cast<float>(classes - 1);
  const float y = 2.0f * static_cast<float>(cls) / mu - 1.0f;
  return std::copysign(std::expm1(std::fabs(y) * std::log1p(mu)) / mu, y);
}

std::vector<int32_t> mulaw_encode(const std::vector<float>& samples, int classes) {
  std::vector<int32_t> out(samples.size());
  std::transform(samples.begin(), samples.end(), out.begin(),
                 [classes](float s) { return mulaw_encode(s, classes); });
  return out;
}

std::vector<float> mulaw_decode(const std::vector<int32_t>& classes_in, int classes) {
  std::vector<float> out(classes_in.size());
  std::transform(classes_in.begin(), classes_in.end(), out.begin(),
                 [classes](int32_t c) { return mulaw_decode(c, classes); });
  return out;
}

}  // namespace tts::kernels
