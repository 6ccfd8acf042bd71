// What a training step of the acoustic model aligns its frames to (network.cpp, on every
// backend): the batch's checks, the durations
// (flat start, given, or found by monotonic alignment search under the prior's means), each token's
// alignment states, and the log-duration targets. All of it runs on the host: the search is a
// dynamic programme over one utterance at a time.
#pragma once

#include <cstdint>
#include <vector>

#include "tts/acoustic/config.h"
#include "tts/acoustic/network.h"

namespace tts::acoustic {

// settings.symbol_timings of an id (kSounds when the table is empty or the id outside it).
frontend::SymbolTiming timing_of(const AcousticLossSettings& settings, int32_t id);

// Throws std::invalid_argument when the batch's ids, lengths and frames disagree with each other
// or with the config (n_mels), or an id lies outside the symbol table.
void check_acoustic_batch(const AcousticBatch& batch, const AcousticConfig& config);

// Throws std::invalid_argument unless `durations` has one entry per id, each utterance's sum to its
// frames, and only symbols that may be skipped have 0.
void check_given_durations(const AcousticBatch& batch, const std::vector<int>& durations,
                           const AcousticLossSettings& settings);

// The flat start of alignment training: each utterance's frames spread evenly over its tokens,
// except those that take no time (0 frames) and the edges' silence, which BOS and EOS take
// (AcousticLossSettings::edge_silence_threshold).
std::vector<int> flat_start_durations(const AcousticBatch& batch,
                                      const AcousticLossSettings& settings);

struct TokenAlignment {
  std::vector<int> durations;        // frames per id
  std::vector<int> state_durations;  // frames per (id, state), id-major
};

// Monotonic alignment search of each utterance's normalised frames (`target`, n_mels × Σ frames)
// against the prior's state means (n_mels × (ids · states), state s of id k in column k·S + s).
TokenAlignment search_alignment(kernels::ConstMatrixRef state_means, kernels::ConstMatrixRef target,
                                const AcousticBatch& batch, const AcousticLossSettings& settings,
                                int states);

// Given durations say nothing of states: each token's frames are split between them evenly, the
// first states taking the odd frames.
std::vector<int> even_state_durations(const std::vector<int>& durations, int states);

// log(1 + frames) per id: the duration predictor's targets (1 × ids).
kernels::Matrix log_duration_targets(const std::vector<int>& durations);

}  // namespace tts::acoustic
