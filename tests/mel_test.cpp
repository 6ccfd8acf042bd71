// Log-mel features against values derived independently of kernels/dsp: the Slaney formula
// written out again here, hand-computed filterbank entries, the analytic spectrum of a windowed
// sine, a numpy fixture (scripts/make-mel-fixture.py), impulses, silence, threads and resampling.
#include "tts/kernels/mel.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "temp_folder.h"
#include "tts/audio/audio_file.h"
#include "tts/kernels/npy.h"

namespace {

using tts::kernels::MelConfig;
using tts::kernels::MelExtractor;
const double kPi = std::acos(-1.0);

// The Slaney scale as the issue states it: 200/3 Hz per mel up to 1000 Hz (mel 15), then
// log(6.4)/27 per mel in log-frequency.
double slaney_mel(double hz) {
  return hz < 1000.0 ? hz * 3.0 / 200.0 : 15.0 + std::log(hz / 1000.0) * 27.0 / std::log(6.4);
}
double slaney_hz(double mel) {
  return mel < 15.0 ? mel * 200.0 / 3.0 : 1000.0 * std::pow(6.4, (mel - 15.0) / 27.0);
}
std::vector<double> band_edges(const MelConfig& c) {
  std::vector<double> f(c.n_mels + 2);
  for (int i = 0; i < c.n_mels + 2; ++i)
    f[i] = slaney_hz(slaney_mel(c.fmin) +
                     (slaney_mel(c.fmax) - slaney_mel(c.fmin)) * i / (c.n_mels + 1));
  return f;
}
// Weight of FFT bin b in band m: a triangle over f[m]..f[m+2] peaking at f[m+1], scaled by
// 2 / (f[m+2] - f[m]) so its area in Hz is 1.
double expected_weight(const MelConfig& c, const std::vector<double>& f, int m, int b) {
  const double hz = b * double(c.sample_rate) / c.n_fft;
  double tri = 0.0;
  if (hz > f[m] && hz <= f[m + 1]) tri = (hz - f[m]) / (f[m + 1] - f[m]);
  if (hz > f[m + 1] && hz < f[m + 2]) tri = (f[m + 2] - hz) / (f[m + 2] - f[m + 1]);
  return tri * 2.0 / (f[m + 2] - f[m]);
}
// Periodic Hann of win_length centred in n_fft.
std::vector<double> padded_window(const MelConfig& c) {
  std::vector<double> w(c.n_fft, 0.0);
  const int left = (c.n_fft - c.win_length) / 2;
  for (int k = 0; k < c.win_length; ++k)
    w[left + k] = 0.5 * (1.0 - std::cos(2.0 * kPi * k / c.win_length));
  return w;
}
std::vector<float> sine(double hz, double amplitude, int rate, std::size_t n, double phase = 0.4) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(amplitude * std::sin(2.0 * kPi * hz * i / rate + phase));
  return x;
}
std::filesystem::path data(const std::string& name) {
  return std::filesystem::path(TTS_TEST_DATA_DIR) / name;
}

TEST(MelFilterbank, MatchesHandComputedEntries) {
  // Default config: mel(8000) = 15 + ln 8 / (ln 6.4 / 27) = 45.2456, so the 82 edges are 0.558588
  // mel = 37.2392 Hz apart in the linear region; bins are 15.625 Hz apart.
  const MelExtractor mel(MelConfig{});
  const Eigen::MatrixXf& fb = mel.filterbank();
  ASSERT_EQ(fb.rows(), 80);
  ASSERT_EQ(fb.cols(), 513);
  // Band 0 spans 0..37.239..74.478 Hz, height 2/74.478 = 0.0268534.
  EXPECT_NEAR(fb(0, 0), 0.0, 1e-9);
  EXPECT_NEAR(fb(0, 1), (15.625 / 37.23921) * 2.0 / 74.47842, 1e-7);               // 0.0112673
  EXPECT_NEAR(fb(0, 2), (31.25 / 37.23921) * 2.0 / 74.47842, 1e-7);                // 0.0225346
  EXPECT_NEAR(fb(0, 3), ((74.47842 - 46.875) / 37.23921) * 2.0 / 74.47842, 1e-7);  // 0.0199050
  EXPECT_NEAR(fb(0, 5), 0.0, 1e-9);
  // Band 26 straddles 1 kHz: edges 968.219, 1005.645, 1045.017 Hz (the last on the log part).
  EXPECT_NEAR(fb(26, 63), 0.0112416921, 1e-7);
  EXPECT_NEAR(fb(26, 64), 0.0221142173, 1e-7);
  // Band 60: edges 3571.405, 3711.229, 3856.526 Hz.
  EXPECT_NEAR(fb(60, 237), 0.0066080185, 1e-7);
  EXPECT_NEAR(fb(60, 238), 0.0066514391, 1e-7);
  EXPECT_NEAR(fb(60, 200), 0.0, 1e-9);
  // Band 79 ends exactly at fmax = 8000 Hz (bin 512).
  EXPECT_NEAR(fb(79, 510), 0.0003505930, 1e-7);
  EXPECT_NEAR(fb(79, 512), 0.0, 1e-6);
}

TEST(MelFilterbank, RowsMatchSlaneyFormulaAndHaveUnitArea) {
  MelConfig wide;
  MelConfig high_fmin;
  high_fmin.sample_rate = 22050;
  high_fmin.fmin = 55.0f;
  high_fmin.fmax = 11025.0f;
  for (const MelConfig& c : {wide, high_fmin}) {
    const Eigen::MatrixXf fb = MelExtractor(c).filterbank();
    const std::vector<double> f = band_edges(c);
    const double df = double(c.sample_rate) / c.n_fft;
    for (int m = 0; m < c.n_mels; ++m) {
      double area = 0.0;
      for (int b = 0; b < fb.cols(); ++b) {
        const double want = expected_weight(c, f, m, b);
        ASSERT_NEAR(fb(m, b), want, 1e-7) << "band " << m << " bin " << b;
        area += fb(m, b) * df;
      }
      // A triangle sampled at >= 10 bins integrates to its area of 1 Hz·(1/Hz) within ~1%.
      if ((f[m + 2] - f[m]) / df >= 10.0) {
        EXPECT_NEAR(area, 1.0, 0.01) << "band " << m;
      }
    }
  }
}

// Fixture from scripts/make-mel-fixture.py (numpy, float64): odd window, fmin > 0, short inputs.
class MelFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(data("mel_fixture_config.json"));
    ASSERT_TRUE(in) << "missing fixture";
    config_ = nlohmann::json::parse(in).get<MelConfig>();
    input_ = tts::kernels::read_npy(data("mel_fixture_input.npy")).data;
  }
  void expect_matches(std::size_t n, const std::string& expected_file) {
    const auto expected = tts::kernels::read_npy(data(expected_file));
    const Eigen::MatrixXf got = MelExtractor(config_).compute(input_.data(), n);
    ASSERT_EQ(expected.shape,
              (std::vector<std::size_t>{1 + n / config_.hop_length, std::size_t(config_.n_mels)}));
    ASSERT_EQ(std::size_t(got.cols()), expected.shape[0]);
    for (std::size_t i = 0; i < expected.data.size(); ++i)  // same memory order: (frames, mels)
      ASSERT_NEAR(got.data()[i], expected.data[i], 2e-4) << expected_file << " element " << i;
  }
  MelConfig config_;
  std::vector<float> input_;
};

TEST_F(MelFixture, FilterbankMatchesNumpy) {
  const auto fb = tts::kernels::read_npy(data("mel_fixture_filterbank.npy"));
  const Eigen::MatrixXf got = MelExtractor(config_).filterbank();
  ASSERT_EQ(fb.shape, (std::vector<std::size_t>{10, 33}));
  for (int m = 0; m < 10; ++m)
    for (int b = 0; b < 33; ++b) ASSERT_NEAR(got(m, b), fb.data[m * 33 + b], 1e-7);
}
TEST_F(MelFixture, FramesMatchNumpy) { expect_matches(input_.size(), "mel_fixture_expected.npy"); }
TEST_F(MelFixture, InputShorterThanPadReflectsRepeatedly) {
  expect_matches(21, "mel_fixture_short_expected.npy");
}
TEST_F(MelFixture, SingleSampleIsRepeated) { expect_matches(1, "mel_fixture_one_expected.npy"); }

TEST(Mel, FrameCountIsOnePlusSamplesOverHop) {
  const MelExtractor mel(MelConfig{});
  for (std::size_t n : {0, 1, 199, 200, 201, 16000}) {
    const std::vector<float> x(n, 0.1f);
    const Eigen::MatrixXf out = mel.compute(x.data(), n);
    EXPECT_EQ(std::size_t(out.cols()), 1 + n / 200) << n;
    EXPECT_EQ(out.rows(), 80);
  }
  MelConfig uncentred;
  uncentred.center = false;
  const MelExtractor plain(uncentred);
  EXPECT_EQ(plain.frame_count(1023), 0u);
  EXPECT_EQ(plain.frame_count(1024), 1u);
  EXPECT_EQ(plain.frame_count(1024 + 399), 2u);
}

TEST(Mel, SilenceGivesLogFloorEverywhere) {
  MelConfig c;
  c.log_floor = 1e-4f;
  const std::vector<float> x(3000, 0.0f);
  const Eigen::MatrixXf out = MelExtractor(c).compute(x.data(), x.size());
  EXPECT_EQ(out.cols(), 16);
  EXPECT_TRUE((out.array() == std::log(1e-4f)).all());
  EXPECT_TRUE((MelExtractor(c).compute(nullptr, 0).array() == std::log(1e-4f)).all());
}

TEST(Mel, ImpulseReachesOnlyFramesWhoseWindowCoversIt) {
  // |DFT| of w[o]·δ is w[o] in every bin, so band m gets w[o] · (row sum of band m), where o is
  // the impulse's position in frame f: t - (f·hop - n_fft/2). Frames whose window is zero there
  // must be exactly log(floor).
  const MelConfig c;
  const std::size_t t = 2003;
  std::vector<float> x(4000, 0.0f);
  x[t] = 1.0f;
  const Eigen::MatrixXf out = MelExtractor(c).compute(x.data(), x.size());
  const std::vector<double> w = padded_window(c), f = band_edges(c);
  int touched = 0;
  for (int frame = 0; frame < out.cols(); ++frame) {
    const long o = long(t) - (long(frame) * c.hop_length - c.n_fft / 2);
    const double wo = (o >= 0 && o < c.n_fft) ? w[o] : 0.0;
    touched += wo > 0.0;
    for (int m = 0; m < c.n_mels; ++m) {
      double row = 0.0;
      for (int b = 0; b <= c.n_fft / 2; ++b) row += expected_weight(c, f, m, b);
      const double want = std::log(std::max(wo * row, double(c.log_floor)));
      if (wo == 0.0)
        ASSERT_EQ(out(m, frame), std::log(c.log_floor)) << "frame " << frame;
      else
        ASSERT_NEAR(out(m, frame), want, 1e-4) << "frame " << frame << " band " << m;
    }
  }
  EXPECT_EQ(touched, 4);  // an 800-sample window at hop 200, first window sample is zero
}

TEST(Mel, SineLandsInItsBandWithTheAnalyticMagnitude) {
  // x[t] = A sin(2π ν t / N + φ) (ν in bins). A frame starting at sample s (window w, N = n_fft)
  // has the DFT X_j = A/(2i) · (e^{iθ} W(j - ν) - e^{-iθ} W(j + ν)), θ = 2π ν s / N + φ, with
  // W(d) = Σ_n w[n] e^{-2πi d n / N}. At the peak the second term is negligible and
  // |X_ν| = A · W(0) / 2 = A · Σw / 2. Band m holds Σ_j fb(m, j) · |X_j|.
  const MelConfig c;
  const std::vector<double> w = padded_window(c), f = band_edges(c);
  const int bins = c.n_fft / 2 + 1, target = 30;
  const double bin_hz = double(c.sample_rate) / c.n_fft, phase = 0.4;
  const double centred = std::round(f[target + 1] / bin_hz) * bin_hz;
  auto dtft = [&](double d) {
    std::complex<double> sum = 0.0;
    for (int n = 0; n < c.n_fft; ++n) sum += w[n] * std::polar(1.0, -2.0 * kPi * d * n / c.n_fft);
    return sum;
  };
  struct Case {
    double hz, amplitude;
  };
  for (const Case& s : {Case{centred, 0.5}, Case{440.0, 0.25}, Case{3000.7, 0.8}}) {
    const std::vector<float> x = sine(s.hz, s.amplitude, c.sample_rate, 8000, phase);
    const Eigen::MatrixXf out = MelExtractor(c).compute(x.data(), x.size());
    const double nu = s.hz / bin_hz;
    std::vector<std::complex<double>> w_minus(bins), w_plus(bins);
    for (int j = 0; j < bins; ++j) {
      w_minus[j] = dtft(j - nu);
      w_plus[j] = dtft(j + nu);
    }
    for (int frame = 5; frame < out.cols() - 5; frame += 7) {  // away from the reflected edges
      const double theta = 2.0 * kPi * nu * (frame * c.hop_length - c.n_fft / 2) / c.n_fft + phase;
      std::vector<double> expected(c.n_mels, 0.0);
      for (int j = 0; j < bins; ++j) {
        const double mag =
            s.amplitude / 2.0 *
            std::abs(std::polar(1.0, theta) * w_minus[j] - std::polar(1.0, -theta) * w_plus[j]);
        for (int m = 0; m < c.n_mels; ++m) expected[m] += expected_weight(c, f, m, j) * mag;
      }
      for (int m = 0; m < c.n_mels; ++m) {
        if (expected[m] > 1e-3) {  // bands the sine really reaches; far ones sit near float noise
          ASSERT_NEAR(out(m, frame), std::log(expected[m]), 1e-3)
              << s.hz << " Hz, frame " << frame << ", band " << m;
        }
      }
    }
    if (s.hz == centred) {
      Eigen::Index peak = 0;
      out.col(out.cols() / 2).maxCoeff(&peak);
      EXPECT_EQ(peak, target);  // the band whose centre is nearest to the tone
      // Periodic Hann of 800 sums to 400, so the peak bin holds 0.5 · 400 / 2 = 100.
      const tts::kernels::MagnitudeStft stft(c.n_fft, c.win_length, c.hop_length, true);
      const Eigen::MatrixXf mag = stft.compute(x.data(), x.size());
      EXPECT_NEAR(mag(int(std::lround(nu)), 20), 100.0, 1e-3);
    }
  }
}

TEST(Mel, ComputeFromTwoThreadsMatchesSerial) {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  std::vector<float> a(48000), b(31000);
  for (float& v : a) v = noise(rng);
  for (float& v : b) v = noise(rng);
  const MelExtractor mel(MelConfig{});
  const Eigen::MatrixXf want_a = mel.compute(a.data(), a.size());
  const Eigen::MatrixXf want_b = mel.compute(b.data(), b.size());
  Eigen::MatrixXf got_a[4], got_b[4];
  std::thread ta([&] {
    for (auto& g : got_a) g = mel.compute(a.data(), a.size());
  });
  std::thread tb([&] {
    for (auto& g : got_b) g = mel.compute(b.data(), b.size());
    MelExtractor own(MelConfig{});  // plans made while the other thread transforms
    (void)own;
  });
  ta.join();
  tb.join();
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(got_a[i] == want_a);
    EXPECT_TRUE(got_b[i] == want_b);
  }
}

TEST(Mel, ResampleRoundTripKeepsPeakBandAndLevel) {
  const MelConfig c;
  const std::vector<float> x = sine(1234.0, 0.5, 16000, 16000);
  const std::vector<float> up = tts::audio::resample(x, 16000, 44100);
  const std::vector<float> back = tts::audio::resample(up, 44100, 16000);
  ASSERT_NEAR(double(back.size()), 16000.0, 2.0);
  const MelExtractor mel(c);
  const Eigen::MatrixXf before = mel.compute(x.data(), x.size());
  const Eigen::MatrixXf after = mel.compute(back.data(), back.size());
  for (int frame = 10; frame < 70; frame += 5) {
    Eigen::Index peak_before = 0, peak_after = 0;
    before.col(frame).maxCoeff(&peak_before);
    after.col(frame).maxCoeff(&peak_after);
    EXPECT_EQ(peak_after, peak_before) << "frame " << frame;
    const double db =
        20.0 / std::log(10.0) * (after(peak_after, frame) - before(peak_before, frame));
    EXPECT_LT(std::abs(db), 0.5) << "frame " << frame;
  }
}

TEST(MelConfig, ValidateNamesTheField) {
  auto message = [](auto edit) {
    MelConfig c;
    edit(c);
    try {
      c.validate();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([](MelConfig& c) { c.n_fft = 1023; }).find("n_fft"), std::string::npos);
  EXPECT_NE(message([](MelConfig& c) { c.win_length = 2048; }).find("win_length"),
            std::string::npos);
  EXPECT_NE(message([](MelConfig& c) { c.hop_length = 0; }).find("hop_length"), std::string::npos);
  EXPECT_NE(message([](MelConfig& c) { c.fmax = 9000; }).find("fmax"), std::string::npos);
  EXPECT_NE(message([](MelConfig& c) { c.fmin = -1; }).find("fmin"), std::string::npos);
  EXPECT_NE(message([](MelConfig& c) { c.log_floor = 0; }).find("log_floor"), std::string::npos);
  EXPECT_NE(message([](MelConfig& c) { c.sample_rate = 0; }).find("sample_rate"),
            std::string::npos);
  EXPECT_EQ(message([](MelConfig&) {}), "no error");
  MelConfig crowded;
  crowded.n_fft = 64;
  crowded.win_length = 64;
  crowded.n_mels = 80;  // 33 bins cannot feed 80 bands
  EXPECT_THROW(MelExtractor{crowded}, std::invalid_argument);
}

TEST(MelConfig, JsonRoundTripAndRejectsTypos) {
  MelConfig c;
  c.sample_rate = 22050;
  c.fmin = 55.0f;
  c.fmax = 7600.0f;
  c.center = false;
  const nlohmann::json j = c;
  const MelConfig back = j.get<MelConfig>();
  EXPECT_EQ(nlohmann::json(back), j);
  EXPECT_EQ(back.sample_rate, 22050);
  EXPECT_FALSE(back.center);
  EXPECT_THROW(nlohmann::json({{"hop", 256}}).get<MelConfig>(), std::invalid_argument);
  EXPECT_THROW(nlohmann::json({{"n_fft", 1024.5}}).get<MelConfig>(), std::invalid_argument);
  EXPECT_THROW(nlohmann::json({{"fmax", 20000}}).get<MelConfig>(), std::invalid_argument);
  EXPECT_EQ(nlohmann::json::object().get<MelConfig>().n_mels, 80);
}

// `tts mel` end to end: the .npy it writes holds exactly what MelExtractor computes from the same
// decoded audio, shaped (frames, n_mels); bad input and bad options give the documented exit codes.
class MelCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    tts_ = std::filesystem::path(TTS_BINARY_DIR) / "tools" / "tts";
    ASSERT_TRUE(std::filesystem::exists(tts_))
        << "the tts target is a dependency of this test: " << tts_;
  }
  int run(const std::string& args) {
    const int status = std::system((tts_.string() + " mel " + args + " 2>/dev/null").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::filesystem::path tts_;
  tts::testing_support::TempFolder dir_;
};

TEST_F(MelCommand, WritesFramesByMelsNpy) {
  const std::vector<float> x = sine(700.0, 0.5, 22050, 11025);
  const auto wav = dir_ / "in.wav", npy = dir_ / "out.npy";
  tts::audio::write_audio(wav, x.data(), x.size(), 22050);
  ASSERT_EQ(run(wav.string() + " -o " + npy.string() + " --n-mels 64"), 0);
  const auto got = tts::kernels::read_npy(npy);
  MelConfig c;
  c.n_mels = 64;
  const tts::audio::Audio audio = tts::audio::read_audio(wav, 16000);
  const Eigen::MatrixXf want = MelExtractor(c).compute(audio.samples.data(), audio.samples.size());
  ASSERT_EQ(got.shape, (std::vector<std::size_t>{std::size_t(want.cols()), 64}));
  EXPECT_EQ(got.shape[0], 1 + audio.samples.size() / 200);
  EXPECT_TRUE(std::equal(got.data.begin(), got.data.end(), want.data()));
}

TEST_F(MelCommand, ExitCodesForMissingInputAndBadOptions) {
  const auto out = (dir_ / "x.npy").string();
  EXPECT_EQ(run((dir_ / "absent.wav").string() + " -o " + out), 3);  // kExitBadInput
  const std::vector<float> x(1600, 0.0f);
  tts::audio::write_audio(dir_ / "in.wav", x.data(), x.size(), 16000);
  const std::string in = (dir_ / "in.wav").string();
  EXPECT_EQ(run(in + " -o " + out + " --hop 0"), 2);  // kExitUsage
  EXPECT_EQ(run(in + " -o " + out + " --n-fft 1023"), 2);
  EXPECT_EQ(run(in + " -o " + out + " --fmax 9000"), 2);
  EXPECT_EQ(run(in + " -o " + out + " --n-mels many"), 2);
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
