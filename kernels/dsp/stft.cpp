// Magnitude STFT on FFTW (single precision). See stft.h for the framing conventions.
#include "tts/kernels/stft.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tts::kernels {

std::mutex& fftw_planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

namespace {

// fftwf_malloc'd buffers: the plan is made on SIMD-aligned arrays, and fftwf_execute_dft_r2c on
// new arrays requires the same alignment, which fftwf_malloc guarantees.
struct FftwFree {
  void operator()(void* p) const { fftwf_free(p); }
};
template <typename T>
std::unique_ptr<T[], FftwFree> fftw_alloc(std::size_t count) {
  auto* p = static_cast<T*>(fftwf_malloc(sizeof(T) * count));
  if (p == nullptr) throw std::bad_alloc();
  return std::unique_ptr<T[], FftwFree>(p);
}

// Index into a signal of n samples for a position j that may lie outside [0, n): numpy.pad
// "reflect" (mirror without repeating the edge sample), applied repeatedly, which is the mirrored
// signal extended with period 2(n-1).
std::size_t reflect_index(std::ptrdiff_t j, std::size_t n) {
  if (n == 1) return 0;
  const auto period = static_cast<std::ptrdiff_t>(2 * (n - 1));
  j %= period;
  if (j < 0) j += period;
  if (j >= static_cast<std::ptrdiff_t>(n)) j = period - j;
  return static_cast<std::size_t>(j);
}

}  // namespace

struct MagnitudeStft::Plan {
  fftwf_plan plan = nullptr;
  ~Plan() {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    fftwf_destroy_plan(plan);
  }
};

MagnitudeStft::MagnitudeStft(int n_fft, int win_length, int hop_length, bool center)
    : n_fft_(n_fft), win_length_(win_length), hop_length_(hop_length), center_(center) {
  if (n_fft < 2 || n_fft % 2 != 0)
    throw std::invalid_argument("STFT n_fft must be even and >= 2, got " + std::to_string(n_fft));
  if (win_length < 1 || win_length > n_fft)
    throw std::invalid_argument("STFT win_length must be in [1, n_fft=" + std::to_string(n_fft) +
                                "], got " + std::to_string(win_length));
  if (hop_length < 1)
    throw std::invalid_argument("STFT hop_length must be >= 1, got " + std::to_string(hop_length));

  // Periodic Hann (scipy get_window('hann', N, fftbins=True), torch.hann_window(N)), computed in
  // double and centred in n_fft as torch.stft and librosa.util.pad_center do.
  win_offset_ = (n_fft - win_length) / 2;
  window_ = Eigen::VectorXf::Zero(n_fft);
  const double pi = std::acos(-1.0);
  for (int k = 0; k < win_length; ++k)
    window_[win_offset_ + k] = static_cast<float>(0.5 - 0.5 * std::cos(2.0 * pi * k / win_length));

  auto in = fftw_alloc<float>(n_fft);
  auto out = fftw_alloc<fftwf_complex>(n_fft / 2 + 1);
  auto plan = std::make_shared<Plan>();
  {
    // FFTW_ESTIMATE: planning is instant and does not depend on timing, so results are
    // reproducible run to run.
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    plan->plan = fftwf_plan_dft_r2c_1d(n_fft, in.get(), out.get(), FFTW_ESTIMATE);
  }
  if (plan->plan == nullptr) throw std::runtime_error("FFTW could not plan an r2c transform");
  plan_ = std::move(plan);
}

std::size_t stft_frame_count(std::size_t n, int n_fft, int hop_length, bool center) {
  const auto hop = static_cast<std::size_t>(hop_length);
  if (center) return 1 + n / hop;  // n + 2 * (n_fft/2) padded samples, n_fft even
  const auto window = static_cast<std::size_t>(n_fft);
  return n < window ? 0 : 1 + (n - window) / hop;
}

std::size_t MagnitudeStft::frame_count(std::size_t n) const {
  return stft_frame_count(n, n_fft_, hop_length_, center_);
}

Eigen::MatrixXf MagnitudeStft::compute(const float* samples, std::size_t n) const {
  Eigen::MatrixXf out(bins(), static_cast<Eigen::Index>(frame_count(n)));
  compute_frames(samples, n, 0, out);
  return out;
}

void MagnitudeStft::compute_frames(const float* samples, std::size_t n, std::size_t first_frame,
                                   Eigen::Ref<Eigen::MatrixXf> out) const {
  if (out.rows() != bins()) throw std::invalid_argument("STFT output must have n_fft/2+1 rows");
  const auto count = static_cast<std::size_t>(out.cols());
  if (first_frame + count > frame_count(n))
    throw std::invalid_argument("STFT frames requested past the end of the signal");
  if (count == 0) return;

  auto in = fftw_alloc<float>(n_fft_);
  auto spectrum = fftw_alloc<fftwf_complex>(bins());
  // Only the non-zero part of the window touches the signal; the rest of the frame stays zero.
  std::fill(in.get(), in.get() + n_fft_, 0.0f);
  const std::ptrdiff_t pad = center_ ? n_fft_ / 2 : 0;
  const auto sn = static_cast<std::ptrdiff_t>(n);

  for (std::size_t c = 0; c < count; ++c) {
    const auto frame = static_cast<std::ptrdiff_t>(first_frame + c);
    // Signal index of window sample win_offset_.
    const std::ptrdiff_t start = frame * hop_length_ - pad + win_offset_;
    float* dst = in.get() + win_offset_;
    const float* w = window_.data() + win_offset_;
    if (start >= 0 && start + win_length_ <= sn) {
      for (int k = 0; k < win_length_; ++k) dst[k] = w[k] * samples[start + k];
    } else if (n == 0) {
      std::fill(dst, dst + win_length_, 0.0f);  // an empty signal is silence
    } else {
      for (int k = 0; k < win_length_; ++k) dst[k] = w[k] * samples[reflect_index(start + k, n)];
    }
    fftwf_execute_dft_r2c(plan_->plan, in.get(), spectrum.get());
    auto col = out.col(static_cast<Eigen::Index>(c));
    for (int b = 0; b < bins(); ++b) {
      const float re = spectrum[b][0], im = spectrum[b][1];
      col[b] = std::sqrt(re * re + im * im);  // not hypot: no overflow risk here, and much faster
    }
  }
}

}  // namespace tts::kernels
