// Log-mel features shared by the vocoder (conditioning) and the acoustic model (targets): Slaney
// mel filterbank over an STFT magnitude, natural log with a floor, as HiFi-GAN/Tacotron 2 compute
// them.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <nlohmann/json_fwd.hpp>

#include "tts/kernels/stft.h"

namespace tts::kernels {

struct MelConfig {
  int sample_rate = 16000;
  int n_fft = 1024;  // must be even
  int win_length = 800;
  int hop_length = 200;
  int n_mels = 80;
  float fmin = 0.0f;
  float fmax = 8000.0f;     // at most sample_rate / 2
  float log_floor = 1e-5f;  // log(max(magnitude, floor))
  bool center = true;       // reflect-pad n_fft/2 on both sides, librosa/torch.stft convention
  // Throws std::invalid_argument naming the offending field and its value.
  void validate() const;
};

// JSON keys are the field names. from_json starts from the defaults, takes the keys present,
// rejects unknown keys and wrong types (std::invalid_argument naming the key) and validates.
void to_json(nlohmann::json& j, const MelConfig& config);
void from_json(const nlohmann::json& j, MelConfig& config);

// n_mels x (n_fft/2 + 1) filterbank, identical to librosa.filters.mel(htk=False, norm="slaney"):
// triangles on the Slaney mel scale (linear below 1000 Hz, logarithmic above) with area
// normalisation 2 / (f[m+2] - f[m]). Throws std::invalid_argument (via validate) on a bad config,
// or when a mel channel contains no FFT bin (n_mels too large for this n_fft and sample rate).
Eigen::MatrixXf slaney_mel_filterbank(const MelConfig& config);

// Immutable after construction; compute() is thread-safe (the FFTW plan is created once under
// fftw_planner_mutex(), and each call uses its own buffers).
class MelExtractor {
 public:
  explicit MelExtractor(const MelConfig& config);  // validates; throws std::invalid_argument

  const MelConfig& config() const { return config_; }

  // n_mels x frames log-mel, column-major; frames = 1 + n / hop_length when center (n samples),
  // frame f centred on sample f * hop_length. The storage is therefore exactly a C-order
  // (frames, n_mels) array, as written to .npy.
  Eigen::MatrixXf compute(const float* samples, std::size_t n) const;

  // The same log-mel (bit-identical), and when log_energy is not null it is resized to the frame
  // count and filled with each frame's energy from the same STFT pass: the natural log of the L2
  // norm of the frame's STFT magnitude (FastSpeech 2's energy), floored like the mels:
  // log(max(norm, log_floor)).
  Eigen::MatrixXf compute(const float* samples, std::size_t n, Eigen::VectorXf* log_energy) const;

  std::size_t frame_count(std::size_t n) const { return stft_.frame_count(n); }

  const Eigen::MatrixXf& filterbank() const { return filterbank_; }

 private:
  MelConfig config_;
  MagnitudeStft stft_;
  Eigen::MatrixXf filterbank_;
};

}  // namespace tts::kernels
