// Magnitude short-time Fourier transform (FFTW, single precision) with the torch.stft/librosa
// framing conventions. The building block under the log-mel features; also usable on its own (for
// example for a spectral loss).
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <memory>
#include <mutex>

namespace tts::kernels {

// FFTW's planner is not thread-safe: every fftwf_plan_* and fftwf_destroy_plan call anywhere in
// the program must hold this lock. (fftwf_execute_* on an existing plan needs no lock.)
std::mutex& fftw_planner_mutex();

// How many frames the conventions below give n samples (what MagnitudeStft::frame_count returns),
// for code that counts frames without an FFT plan.
std::size_t stft_frame_count(std::size_t n, int n_fft, int hop_length, bool center);

// |STFT| of real signals. Immutable after construction; all const methods are thread-safe.
//
// Conventions (the same as torch.stft(center=True, pad_mode="reflect") and librosa.stft with
// pad_mode="reflect"):
//  - window: periodic Hann of win_length (w[k] = 0.5 - 0.5 cos(2 pi k / win_length)), zero-padded
//    to n_fft with (n_fft - win_length) / 2 zeros (rounded down) on the left;
//  - center = true: the signal is reflect-padded by n_fft/2 on both sides, so frame f is centred
//    on sample f * hop_length and there are 1 + n / hop_length frames for n samples;
//    center = false: frame f starts at sample f * hop_length; 1 + (n - n_fft) / hop_length frames
//    (none when n < n_fft);
//  - reflect padding of a signal shorter than the pad reflects repeatedly (numpy.pad "reflect"
//    semantics: the mirrored signal is extended periodically), so a very short clip still gives
//    well-defined frames instead of an error (torch.stft refuses such input). A single sample is
//    repeated; an empty signal is treated as silence.
class MagnitudeStft {
 public:
  // Throws std::invalid_argument if n_fft is not even and >= 2, win_length is not in
  // [1, n_fft], or hop_length < 1.
  MagnitudeStft(int n_fft, int win_length, int hop_length, bool center);

  int n_fft() const { return n_fft_; }
  int hop_length() const { return hop_length_; }
  int bins() const { return n_fft_ / 2 + 1; }
  bool center() const { return center_; }
  // The analysis window, already zero-padded to n_fft.
  const Eigen::VectorXf& window() const { return window_; }

  std::size_t frame_count(std::size_t n) const;

  // bins x frame_count(n) magnitudes, column f = frame f.
  Eigen::MatrixXf compute(const float* samples, std::size_t n) const;

  // Magnitudes of frames [first_frame, first_frame + out.cols()) into out (bins rows). Lets a
  // caller process a long signal in blocks without holding the whole spectrogram.
  void compute_frames(const float* samples, std::size_t n, std::size_t first_frame,
                      Eigen::Ref<Eigen::MatrixXf> out) const;

 private:
  struct Plan;
  int n_fft_, win_length_, hop_length_;
  bool center_;
  int win_offset_;  // first non-zero-padded index of the window within n_fft
  Eigen::VectorXf window_;
  std::shared_ptr<const Plan> plan_;
};

}  // namespace tts::kernels
