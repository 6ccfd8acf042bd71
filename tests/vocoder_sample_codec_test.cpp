#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tts/kernels/mulaw.h"
#include "tts/vocoder/config.h"
#include "tts/vocoder/sample_codec.h"

using namespace tts;

namespace {

vocoder::WaveNetConfig codec(float preemphasis) {
  vocoder::WaveNetConfig c;
  c.preemphasis = preemphasis;
  return c;
}

std::vector<float> sine(int n, float hz, float amplitude) {
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = amplitude * std::sin(2.0f * 3.14159265f * hz * i / 16000.0f);
  return x;
}

// Energy of the first difference over the energy of the signal: near 0 for low frequencies, 4 for
// a signal at the Nyquist frequency, 2 for white noise.
double high_frequency_share(const std::vector<float>& e) {
  double total = 0.0, diff = 0.0;
  for (std::size_t i = 1; i < e.size(); ++i) {
    total += double(e[i]) * e[i];
    diff += double(e[i] - e[i - 1]) * (e[i] - e[i - 1]);
  }
  return diff / total;
}

}  // namespace

TEST(SampleCodec, WithoutPreemphasisItIsPlainMuLaw) {
  const auto x = sine(800, 300.0f, 0.7f);
  const auto classes = vocoder::encode_samples(x, 256, 0.0f);
  EXPECT_EQ(classes, kernels::mulaw_encode(x, 256));
  EXPECT_EQ(vocoder::decode_samples(codec(0.0f), classes), kernels::mulaw_decode(classes, 256));
}

TEST(SampleCodec, PreemphasisRoundTripKeepsTheSignal) {
  const auto x = sine(4000, 220.0f, 0.5f);
  const auto y = vocoder::decode_samples(codec(0.85f), vocoder::encode_samples(x, 256, 0.85f));
  ASSERT_EQ(y.size(), x.size());
  double signal = 0.0, error = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    signal += double(x[i]) * x[i];
    error += double(y[i] - x[i]) * (y[i] - x[i]);
  }
  // 8-bit μ-law alone gives about 38 dB on such a tone; de-emphasis may cost a few dB at most.
  EXPECT_GT(10.0 * std::log10(signal / error), 30.0);
}

TEST(SampleCodec, ThePreemphasisFilterIsTheOneDocumented) {
  // With 65536 classes the quantisation is negligible, so classes decode to x[n] - 0.9·x[n-1].
  const std::vector<float> x = {0.5f, 0.25f, -0.5f, 0.0f};
  const auto classes = vocoder::encode_samples(x, 65536, 0.9f);
  const float expected[] = {0.5f, 0.25f - 0.45f, -0.5f - 0.225f, 0.45f};
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(kernels::mulaw_decode(classes[i], 65536), expected[i], 2e-3);
}

TEST(SampleCodec, BlockwiseDecodingEqualsWholeClipDecoding) {
  const auto classes = vocoder::encode_samples(sine(1000, 500.0f, 0.4f), 256, 0.85f);
  const auto whole = vocoder::decode_samples(codec(0.85f), classes);
  vocoder::SampleDecoder decoder(codec(0.85f));
  for (std::size_t i = 0; i < classes.size(); ++i) ASSERT_EQ(decoder.decode(classes[i]), whole[i]);
}

TEST(SampleCodec, PreemphasisMovesSamplingNoiseToLowFrequencies) {
  // A vocoder that picks a neighbouring class now and then adds white noise in the class domain.
  // After de-emphasis that noise must carry clearly less high-frequency energy than without it.
  const auto x = sine(16000, 200.0f, 0.3f);
  auto noise_share = [&](float preemphasis) {
    auto classes = vocoder::encode_samples(x, 256, preemphasis);
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> step(-2, 2);
    for (auto& c : classes) c = std::clamp(c + step(rng), 0, 255);
    const auto y = vocoder::decode_samples(codec(preemphasis), classes);
    std::vector<float> error(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) error[i] = y[i] - x[i];
    return high_frequency_share(error);
  };
  const double plain = noise_share(0.0f), shaped = noise_share(0.85f);
  EXPECT_NEAR(plain, 2.0, 0.3);  // white
  EXPECT_LT(shaped, 0.5 * plain);
}

TEST(SampleCodec, ConfigCarriesPreemphasisAndRejectsBadValues) {
  vocoder::WaveNetConfig c = codec(0.85f);
  nlohmann::json j = c;
  EXPECT_FLOAT_EQ(j.get<vocoder::WaveNetConfig>().preemphasis, 0.85f);
  // Configs written before the field existed read as "no pre-emphasis".
  j.erase("preemphasis");
  EXPECT_EQ(j.get<vocoder::WaveNetConfig>().preemphasis, 0.0f);
  j["preemphasis"] = 1.0;
  EXPECT_THROW(j.get<vocoder::WaveNetConfig>(), std::invalid_argument);
  j["preemphasis"] = "0.85";
  EXPECT_THROW(j.get<vocoder::WaveNetConfig>(), std::invalid_argument);
}
