// Durations and alignments between a sequence of tokens (phonemes) and a sequence of frames: the
// length regulator that repeats token states by their durations, the per-frame position inside its
// token, a Gaussian log-likelihood of frames under per-token means, and monotonic alignment search
// (Glow-TTS): the Viterbi-best monotonic path that gives every token that must sound at least
// one frame.
#pragma once

#include <vector>

#include "tts/kernels/tensor.h"

namespace tts::kernels {

// out (C × Σd) = x (C × P) with column p repeated durations[p] times (durations >= 0).
void repeat_columns(ConstMatrixRef x, const std::vector<int>& durations, MatrixRef out);
// dx += the sum of d_out over each column's repeats (the adjoint of repeat_columns).
void repeat_columns_backward(ConstMatrixRef d_out, const std::vector<int>& durations, MatrixRef dx);

// out (2 × Σd): for frame j of a token lasting d frames, row 0 = (j + 0.5) / d - 0.5 (where in the
// token, -0.5..0.5) and row 1 = log(d) / 4 (how long the token is). Constant decoder inputs.
void token_position_features(const std::vector<int>& durations, MatrixRef out);

// out (P × F): log N(frames[:, f]; means[:, p], I) = -½‖x_f - μ_p‖² - (M/2)·log 2π, with M rows.
void gaussian_log_likelihood(ConstMatrixRef means, ConstMatrixRef frames, MatrixRef out);

// The durations (P values summing to F) of the monotonic alignment of P tokens to F frames that
// maximises the summed log_likelihood (P × F) along the path: frames are assigned to tokens in
// order, each token gets a contiguous run of frames, at least one unless may_skip[p] is true
// (stress and length marks, word boundaries, punctuation: symbols that need not sound). An empty
// may_skip means no token may be skipped (Glow-TTS MAS). Ties prefer staying on the current token,
// then the nearest earlier token. Throws std::invalid_argument when a size is zero, may_skip has
// the wrong size, or more tokens must sound than there are frames.
std::vector<int> monotonic_alignment_search(ConstMatrixRef log_likelihood,
                                            const std::vector<bool>& may_skip = {});

// `tokens` durations of at least one frame summing to `frames`, as equal as possible (the flat
// start of alignment training). Throws std::invalid_argument when tokens > frames or tokens < 1.
std::vector<int> uniform_durations(int tokens, int frames);

}  // namespace tts::kernels
