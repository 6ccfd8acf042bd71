#include "tts/kernels/alignment.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "tts/kernels/linear_algebra.h"

namespace tts::kernels {

namespace {
Eigen::Index total_frames(const std::vector<int>& durations) {
  Eigen::Index total = 0;
  for (int d : durations) {
    if (d < 0) throw std::invalid_argument("durations must not be negative");
    total += d;
  }
  return total;
}
}  // namespace

void repeat_columns(ConstMatrixRef x, const std::vector<int>& durations, MatrixRef out) {
  if (static_cast<Eigen::Index>(durations.size()) != x.cols() ||
      total_frames(durations) != out.cols() || out.rows() != x.rows())
    throw std::invalid_argument("repeat_columns: shapes do not agree");
  Eigen::Index f = 0;
  for (std::size_t p = 0; p < durations.size(); ++p) {
    out.middleCols(f, durations[p]).colwise() = x.col(static_cast<Eigen::Index>(p));
    f += durations[p];
  }
}

void repeat_columns_backward(ConstMatrixRef d_out, const std::vector<int>& durations,
                             MatrixRef dx) {
  if (static_cast<Eigen::Index>(durations.size()) != dx.cols() ||
      total_frames(durations) != d_out.cols() || d_out.rows() != dx.rows())
    throw std::invalid_argument("repeat_columns_backward: shapes do not agree");
  Eigen::Index f = 0;
  for (std::size_t p = 0; p < durations.size(); ++p) {
    dx.col(static_cast<Eigen::Index>(p)) += d_out.middleCols(f, durations[p]).rowwise().sum();
    f += durations[p];
  }
}

void token_position_features(const std::vector<int>& durations, MatrixRef out) {
  if (out.rows() != 2 || total_frames(durations) != out.cols())
    throw std::invalid_argument("token_position_features: out must be 2 × Σ durations");
  Eigen::Index f = 0;
  for (int d : durations) {
    for (int j = 0; j < d; ++j, ++f) {
      out(0, f) = (static_cast<float>(j) + 0.5f) / static_cast<float>(d) - 0.5f;
      out(1, f) = std::log(static_cast<float>(d)) / 4.0f;
    }
  }
}

void gaussian_log_likelihood(ConstMatrixRef means, ConstMatrixRef frames, MatrixRef out) {
  if (means.rows() != frames.rows() || out.rows() != means.cols() || out.cols() != frames.cols())
    throw std::invalid_argument("gaussian_log_likelihood: shapes do not agree");
  // -½‖x - μ‖² = μᵀx - ½‖μ‖² - ½‖x‖²: one GEMM for the cross terms.
  gemm(out, means, Transpose::kYes, frames, Transpose::kNo);
  const float constant =
      -0.5f * static_cast<float>(means.rows()) * std::log(2.0f * static_cast<float>(M_PI));
  out.colwise() -= 0.5f * means.colwise().squaredNorm().transpose();
  out.rowwise() -= 0.5f * frames.colwise().squaredNorm();
  out.array() += constant;
}

std::vector<int> monotonic_alignment_search(ConstMatrixRef ll) {
  const Eigen::Index tokens = ll.rows(), frames = ll.cols();
  if (tokens == 0 || frames == 0 || tokens > frames)
    throw std::invalid_argument("monotonic_alignment_search: cannot align " +
                                std::to_string(tokens) + " tokens to " + std::to_string(frames) +
                                " frames (every token needs at least one frame)");
  const double minus_inf = -std::numeric_limits<double>::infinity();
  // best(p) after frame f: the best score of a path that is on token p at frame f. Token p is
  // reachable at frame f only when p <= f and tokens - p <= frames - f.
  std::vector<double> best(static_cast<std::size_t>(tokens), minus_inf), next(best.size());
  // advanced(p, f): the path into (p, f) came from token p - 1 (1) or stayed on p (0).
  Eigen::Matrix<unsigned char, Eigen::Dynamic, Eigen::Dynamic> advanced(tokens, frames);
  advanced.setZero();
  best[0] = ll(0, 0);
  for (Eigen::Index f = 1; f < frames; ++f) {
    const Eigen::Index low = std::max<Eigen::Index>(0, tokens - (frames - f));
    const Eigen::Index high = std::min(tokens - 1, f);
    std::fill(next.begin(), next.end(), minus_inf);
    for (Eigen::Index p = low; p <= high; ++p) {
      const double stay = best[p];
      const double move = p > 0 ? best[p - 1] : minus_inf;
      advanced(p, f) = move > stay;
      next[p] = std::max(stay, move) + ll(p, f);
    }
    best.swap(next);
  }
  std::vector<int> durations(static_cast<std::size_t>(tokens), 0);
  Eigen::Index p = tokens - 1;
  for (Eigen::Index f = frames - 1; f >= 0; --f) {
    ++durations[static_cast<std::size_t>(p)];
    if (f > 0 && advanced(p, f)) --p;
  }
  if (p != 0) throw std::logic_error("monotonic_alignment_search: path does not start at token 0");
  return durations;
}

std::vector<int> uniform_durations(int tokens, int frames) {
  if (tokens < 1 || tokens > frames)
    throw std::invalid_argument("uniform_durations: cannot spread " + std::to_string(frames) +
                                " frames over " + std::to_string(tokens) + " tokens");
  std::vector<int> durations(static_cast<std::size_t>(tokens));
  for (int p = 0; p < tokens; ++p)
    durations[static_cast<std::size_t>(p)] =
        static_cast<int>(static_cast<int64_t>(frames) * (p + 1) / tokens -
                         static_cast<int64_t>(frames) * p / tokens);
  return durations;
}

}  // namespace tts::kernels
