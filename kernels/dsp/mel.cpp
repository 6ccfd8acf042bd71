// Log-mel features: Slaney mel filterbank over the STFT magnitude, natural log with a floor.
#include "tts/kernels/mel.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tts::kernels {

namespace {

template <typename T>
[[noreturn]] void bad_field(const char* field, T value, const std::string& rule) {
  std::ostringstream message;
  message << "MelConfig." << field << " = " << value << ": " << rule;
  throw std::invalid_argument(message.str());
}

// Slaney's Auditory Toolbox mel scale (librosa htk=False): linear at 200/3 Hz per mel below
// 1000 Hz (mel 15), logarithmic above with 27 mels per factor of 6.4.
constexpr double kLinearHzPerMel = 200.0 / 3.0;
constexpr double kBreakHz = 1000.0;
constexpr double kBreakMel = kBreakHz / kLinearHzPerMel;

double log_step() { return std::log(6.4) / 27.0; }

double hz_to_mel(double hz) {
  if (hz < kBreakHz) return hz / kLinearHzPerMel;
  return kBreakMel + std::log(hz / kBreakHz) / log_step();
}

double mel_to_hz(double mel) {
  if (mel < kBreakMel) return mel * kLinearHzPerMel;
  return kBreakHz * std::exp(log_step() * (mel - kBreakMel));
}

}  // namespace

void MelConfig::validate() const {
  if (sample_rate <= 0) bad_field("sample_rate", sample_rate, "must be > 0");
  if (n_fft < 2 || n_fft % 2 != 0) bad_field("n_fft", n_fft, "must be even and >= 2");
  if (win_length < 1 || win_length > n_fft)
    bad_field("win_length", win_length, "must be in [1, n_fft=" + std::to_string(n_fft) + "]");
  if (hop_length < 1) bad_field("hop_length", hop_length, "must be >= 1");
  if (n_mels < 1) bad_field("n_mels", n_mels, "must be >= 1");
  if (!std::isfinite(fmin) || fmin < 0.0f) bad_field("fmin", fmin, "must be finite and >= 0");
  const double nyquist = sample_rate / 2.0;
  if (!std::isfinite(fmax) || fmax <= fmin || fmax > nyquist) {
    std::ostringstream rule;
    rule << "must be > fmin (" << fmin << ") and <= sample_rate/2 (" << nyquist << ")";
    bad_field("fmax", fmax, rule.str());
  }
  if (!std::isfinite(log_floor) || log_floor <= 0.0f)
    bad_field("log_floor", log_floor, "must be finite and > 0");
}

void to_json(nlohmann::json& j, const MelConfig& c) {
  j = nlohmann::json{{"sample_rate", c.sample_rate},
                     {"n_fft", c.n_fft},
                     {"win_length", c.win_length},
                     {"hop_length", c.hop_length},
                     {"n_mels", c.n_mels},
                     {"fmin", c.fmin},
                     {"fmax", c.fmax},
                     {"log_floor", c.log_floor},
                     {"center", c.center}};
}

void from_json(const nlohmann::json& j, MelConfig& c) {
  if (!j.is_object()) throw std::invalid_argument("mel config must be a JSON object");
  MelConfig out;
  for (const auto& item : j.items()) {
    // Named references, not a structured binding: C++17 lambdas cannot capture one.
    const std::string& key = item.key();
    const nlohmann::json& value = item.value();
    // A number where an int is expected must be integral: 1024.5 is a mistake, not 1024.
    auto get_int = [&](int& field) {
      if (!value.is_number_integer())
        throw std::invalid_argument("mel config: \"" + key + "\" must be an integer");
      field = value.get<int>();
    };
    auto get_float = [&](float& field) {
      if (!value.is_number())
        throw std::invalid_argument("mel config: \"" + key + "\" must be a number");
      field = value.get<float>();
    };
    if (key == "sample_rate")
      get_int(out.sample_rate);
    else if (key == "n_fft")
      get_int(out.n_fft);
    else if (key == "win_length")
      get_int(out.win_length);
    else if (key == "hop_length")
      get_int(out.hop_length);
    else if (key == "n_mels")
      get_int(out.n_mels);
    else if (key == "fmin")
      get_float(out.fmin);
    else if (key == "fmax")
      get_float(out.fmax);
    else if (key == "log_floor")
      get_float(out.log_floor);
    else if (key == "center") {
      if (!value.is_boolean())
        throw std::invalid_argument("mel config: \"center\" must be true or false");
      out.center = value.get<bool>();
    } else {
      // A misspelt key silently keeping its default would change the features unnoticed.
      throw std::invalid_argument("mel config: unknown key \"" + key + "\"");
    }
  }
  out.validate();
  c = out;
}

Eigen::MatrixXf slaney_mel_filterbank(const MelConfig& config) {
  config.validate();
  const int bins = config.n_fft / 2 + 1;
  const int n_mels = config.n_mels;
  // Band edges: n_mels + 2 points equally spaced in mel from fmin to fmax. Band m rises from
  // edge[m] to edge[m+1] and falls to edge[m+2]. Computed in double, like librosa.
  std::vector<double> edge(n_mels + 2);
  const double mel_lo = hz_to_mel(config.fmin), mel_hi = hz_to_mel(config.fmax);
  for (int i = 0; i < n_mels + 2; ++i)
    edge[i] = mel_to_hz(mel_lo + (mel_hi - mel_lo) * i / (n_mels + 1));

  Eigen::MatrixXf fb = Eigen::MatrixXf::Zero(n_mels, bins);
  for (int m = 0; m < n_mels; ++m) {
    const double area_norm = 2.0 / (edge[m + 2] - edge[m]);
    bool any = false;
    for (int b = 0; b < bins; ++b) {
      const double hz = static_cast<double>(b) * config.sample_rate / config.n_fft;
      const double rise = (hz - edge[m]) / (edge[m + 1] - edge[m]);
      const double fall = (edge[m + 2] - hz) / (edge[m + 2] - edge[m + 1]);
      const double weight = std::max(0.0, std::min(rise, fall));
      fb(m, b) = static_cast<float>(weight * area_norm);
      any = any || weight > 0.0;
    }
    if (!any) {
      // librosa only warns here; a channel that can never respond is a configuration mistake.
      throw std::invalid_argument("MelConfig.n_mels = " + std::to_string(n_mels) +
                                  ": mel channel " + std::to_string(m) +
                                  " contains no FFT bin; reduce n_mels or raise n_fft");
    }
  }
  return fb;
}

namespace {
const MelConfig& validated(const MelConfig& config) {
  config.validate();
  return config;
}
}  // namespace

MelExtractor::MelExtractor(const MelConfig& config)
    : config_(validated(config)),
      stft_(config.n_fft, config.win_length, config.hop_length, config.center),
      filterbank_(slaney_mel_filterbank(config)) {}

Eigen::MatrixXf MelExtractor::compute(const float* samples, std::size_t n) const {
  return compute(samples, n, nullptr);
}

Eigen::MatrixXf MelExtractor::compute(const float* samples, std::size_t n,
                                      Eigen::VectorXf* log_energy) const {
  const auto frames = static_cast<Eigen::Index>(stft_.frame_count(n));
  Eigen::MatrixXf mel(config_.n_mels, frames);
  if (log_energy != nullptr) log_energy->resize(frames);
  // Blocks of frames: one GEMM per block, without holding the whole (bins x frames) spectrogram of
  // a long recording in memory.
  constexpr Eigen::Index kBlock = 64;
  Eigen::MatrixXf magnitude(stft_.bins(), std::min(kBlock, frames));
  for (Eigen::Index first = 0; first < frames; first += kBlock) {
    const Eigen::Index count = std::min(kBlock, frames - first);
    auto block = magnitude.leftCols(count);
    stft_.compute_frames(samples, n, static_cast<std::size_t>(first), block);
    mel.middleCols(first, count).noalias() = filterbank_ * block;
    if (log_energy != nullptr) {
      for (Eigen::Index c = 0; c < count; ++c) {
        // Summed in double: the norm does not depend on Eigen's SIMD reduction order.
        double sum = 0.0;
        for (Eigen::Index b = 0; b < block.rows(); ++b) sum += double{block(b, c)} * block(b, c);
        (*log_energy)[first + c] = static_cast<float>(std::sqrt(sum));
      }
    }
  }
  // Scalar std::log rather than Eigen's vectorised log: silence then gives exactly
  // std::log(log_floor), and results do not depend on which SIMD path Eigen compiled.
  const float floor = config_.log_floor;
  mel = mel.unaryExpr([floor](float v) { return std::log(std::max(v, floor)); });
  if (log_energy != nullptr)
    *log_energy = log_energy->unaryExpr([floor](float v) { return std::log(std::max(v, floor)); });
  return mel;
}

}  // namespace tts::kernels
