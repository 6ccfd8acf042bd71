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

std::vector<int> monotonic_alignment_search(ConstMatrixRef ll, const std::vector<bool>& may_skip) {
  const Eigen::Index tokens = ll.rows(), frames = ll.cols();
  if (!may_skip.empty() && static_cast<Eigen::Index>(may_skip.size()) != tokens)
    throw std::invalid_argument("monotonic_alignment_search: may_skip has " +
                                std::to_string(may_skip.size()) + " entries for " +
                                std::to_string(tokens) + " tokens");
  auto skippable = [&](Eigen::Index p) { return !may_skip.empty() && may_skip[p]; };
  Eigen::Index sounding = 0;
  for (Eigen::Index p = 0; p < tokens; ++p) sounding += !skippable(p);
  if (tokens == 0 || frames == 0 || sounding > frames)
    throw std::invalid_argument("monotonic_alignment_search: cannot align " +
                                std::to_string(tokens) + " tokens to " + std::to_string(frames) +
                                " frames (" + std::to_string(sounding) +
                                " tokens need at least one frame each)");
  const double minus_inf = -std::numeric_limits<double>::infinity();
  // best[p]: the best score of a path whose latest frame belongs to token p. A path moves from
  // token q at frame f-1 to token p > q at frame f when every token between them may be skipped.
  std::vector<double> best(static_cast<std::size_t>(tokens), minus_inf), next(best.size());
  // came_from(p, f): the token that owned frame f-1 on the best path into (p, f).
  Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic> came_from(tokens, frames);
  for (Eigen::Index p = 0; p < tokens; ++p) {
    best[p] = ll(p, 0);
    if (!skippable(p)) break;  // the first frame may go to any token after skippable ones only
  }
  for (Eigen::Index f = 1; f < frames; ++f) {
    // reach / reach_from: the best path that may enter token p at frame f from an earlier token.
    double reach = minus_inf;
    int32_t reach_from = -1;
    for (Eigen::Index p = 0; p < tokens; ++p) {
      const double stay = best[p];
      // Ties keep staying first, then the nearest earlier token (>=: p-1 replaces older ones).
      if (stay >= reach) {
        next[p] = stay + ll(p, f);
        came_from(p, f) = static_cast<int32_t>(p);
      } else {
        next[p] = reach + ll(p, f);
        came_from(p, f) = reach_from;
      }
      // What token p+1 may be entered from: token p itself, or (if p may be skipped) whatever
      // could enter p.
      if (!skippable(p)) reach = minus_inf, reach_from = -1;
      if (best[p] >= reach) reach = best[p], reach_from = static_cast<int32_t>(p);
    }
    best.swap(next);
  }
  // The path must end on the last token that has to sound, or on a skippable token after it.
  Eigen::Index last = tokens - 1;
  Eigen::Index end = last;
  for (Eigen::Index p = last; p >= 0; --p) {
    if (best[p] > best[end]) end = p;
    if (!skippable(p)) break;
  }
  if (!std::isfinite(best[end]))
    throw std::logic_error("monotonic_alignment_search: no path reaches the last token");
  std::vector<int> durations(static_cast<std::size_t>(tokens), 0);
  Eigen::Index p = end;
  for (Eigen::Index f = frames - 1; f >= 0; --f) {
    ++durations[static_cast<std::size_t>(p)];
    if (f > 0) p = came_from(p, f);
  }
  for (Eigen::Index q = 0; q < p; ++q)
    if (!skippable(q))
      throw std::logic_error("monotonic_alignment_search: path skips a token that must sound");
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
