#include "tts/acoustic/alignment_targets.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "tts/kernels/alignment.h"

namespace tts::acoustic {

using kernels::Matrix;

namespace {
int sum(const std::vector<int>& values) { return std::accumulate(values.begin(), values.end(), 0); }
}  // namespace

frontend::SymbolTiming timing_of(const AcousticLossSettings& settings, int32_t id) {
  const auto& timings = settings.symbol_timings;
  if (id < 0 || static_cast<std::size_t>(id) >= timings.size())
    return frontend::SymbolTiming::kSounds;
  return timings[static_cast<std::size_t>(id)];
}

void check_acoustic_batch(const AcousticBatch& batch, const AcousticConfig& config) {
  if (batch.token_lengths.size() != batch.frame_lengths.size() || batch.token_lengths.empty() ||
      sum(batch.token_lengths) != static_cast<int>(batch.ids.size()) ||
      sum(batch.frame_lengths) != batch.mel.cols() || batch.mel.rows() != config.n_mels)
    throw std::invalid_argument("acoustic batch: ids, lengths and mel frames do not agree");
  if (config.pitch_energy &&
      (batch.log_f0.rows() != 1 || batch.log_f0.cols() != batch.mel.cols() ||
       batch.log_energy.rows() != 1 || batch.log_energy.cols() != batch.mel.cols()))
    throw std::invalid_argument(
        "acoustic batch: a model with pitch and energy needs one log F0 and one log energy per "
        "mel frame");
  for (int32_t id : batch.ids)
    if (id < 0 || id >= config.symbols)
      throw std::invalid_argument("acoustic model: id " + std::to_string(id) +
                                  " is outside the symbol table (0.." +
                                  std::to_string(config.symbols - 1) + ")");
}

void check_given_durations(const AcousticBatch& batch, const std::vector<int>& durations,
                           const AcousticLossSettings& settings) {
  if (durations.size() != batch.ids.size())
    throw std::invalid_argument("acoustic batch: one duration per id is needed");
  std::size_t first = 0;
  for (std::size_t u = 0; u < batch.token_lengths.size(); ++u) {
    const auto begin = durations.begin() + static_cast<std::ptrdiff_t>(first);
    const auto end = begin + batch.token_lengths[u];
    bool valid = std::accumulate(begin, end, 0) == batch.frame_lengths[u];
    for (std::size_t k = first; k < first + static_cast<std::size_t>(batch.token_lengths[u]); ++k)
      valid =
          valid && (durations[k] > 0 || (durations[k] == 0 && timing_of(settings, batch.ids[k]) !=
                                                                  frontend::SymbolTiming::kSounds));
    if (!valid)
      throw std::invalid_argument("acoustic batch: durations of utterance " + std::to_string(u) +
                                  " must sum to its frames and be >= 1 (0 only for symbols "
                                  "that may be skipped)");
    first += static_cast<std::size_t>(batch.token_lengths[u]);
  }
}

std::vector<int> flat_start_durations(const AcousticBatch& batch,
                                      const AcousticLossSettings& settings) {
  std::vector<int> durations(batch.ids.size(), 0);
  std::size_t first = 0;
  Eigen::Index frame_at = 0;
  for (std::size_t u = 0; u < batch.token_lengths.size(); ++u) {
    std::vector<std::size_t> timed;
    for (std::size_t k = first; k < first + static_cast<std::size_t>(batch.token_lengths[u]); ++k)
      if (timing_of(settings, batch.ids[k]) != frontend::SymbolTiming::kNoTime) timed.push_back(k);
    const int frames = batch.frame_lengths[u];
    // The recording's leading and trailing quiet frames go to the edge pause tokens (BOS, EOS)
    // and the rest is spread evenly over the other tokens. Spread over every token, the silence
    // lands in the first and last phonemes, whose models then learn it and keep taking it
    // (docs/acoustic-model.md).
    int lead = 0, trail = 0;
    const float share = settings.edge_silence_threshold;
    const bool edges =
        share > 0.0f && timed.size() >= 3 &&
        timing_of(settings, batch.ids[timed.front()]) == frontend::SymbolTiming::kMayPause &&
        timing_of(settings, batch.ids[timed.back()]) == frontend::SymbolTiming::kMayPause;
    if (edges) {
      const Eigen::VectorXf loudness =
          batch.mel.middleCols(frame_at, frames).colwise().mean().transpose();
      const float quiet = loudness.minCoeff() + share * (loudness.maxCoeff() - loudness.minCoeff());
      const int spare = frames - static_cast<int>(timed.size()) + 2;  // every inner token keeps one
      while (lead < spare && loudness(lead) < quiet) ++lead;
      while (trail < spare - lead && loudness(frames - 1 - trail) < quiet) ++trail;
    }
    std::vector<int> d;
    if (edges) {
      d = kernels::uniform_durations(static_cast<int>(timed.size()) - 2, frames - lead - trail);
      d.insert(d.begin(), lead);
      d.push_back(trail);
    } else {
      d = kernels::uniform_durations(static_cast<int>(timed.size()), frames);
    }
    for (std::size_t i = 0; i < timed.size(); ++i) durations[timed[i]] = d[i];
    first += static_cast<std::size_t>(batch.token_lengths[u]);
    frame_at += frames;
  }
  return durations;
}

TokenAlignment search_alignment(kernels::ConstMatrixRef state_means, kernels::ConstMatrixRef target,
                                const AcousticBatch& batch, const AcousticLossSettings& settings,
                                int states) {
  const std::vector<int32_t>& ids = batch.ids;
  const std::vector<int>&token_lengths = batch.token_lengths, &frame_lengths = batch.frame_lengths;
  TokenAlignment result;
  std::vector<int>& durations = result.durations;
  durations.assign(ids.size(), 0);
  result.state_durations.assign(ids.size() * static_cast<std::size_t>(states), 0);
  Eigen::Index token = 0, frame = 0;
  for (std::size_t u = 0; u < token_lengths.size(); ++u) {
    const int tokens = token_lengths[u], frames = frame_lengths[u];
    // Tokens that take no time (stress, length marks) stay out of the search with 0 frames.
    std::vector<Eigen::Index> aligned;
    std::vector<bool> may_skip;
    for (Eigen::Index k = token; k < token + tokens; ++k) {
      const frontend::SymbolTiming t = timing_of(settings, ids[static_cast<std::size_t>(k)]);
      if (t == frontend::SymbolTiming::kNoTime) continue;
      aligned.push_back(k);
      may_skip.push_back(t != frontend::SymbolTiming::kSounds);
    }
    const auto sounding = std::count(may_skip.begin(), may_skip.end(), false);
    if (sounding > frames || aligned.empty())
      throw std::invalid_argument("utterance " + std::to_string(u) + " of the batch has " +
                                  std::to_string(sounding) + " tokens that must sound but " +
                                  std::to_string(frames) + " frames");
    // Each aligned token becomes `states` rows in order. When the token must sound, its first
    // `required` states must take a frame each and later ones may be skipped; an utterance too
    // short for that needs one frame a phone.
    int required =
        settings.min_phone_states > 0 ? std::min(settings.min_phone_states, states) : states;
    if (static_cast<long>(sounding) * required > frames) required = 1;
    const auto& all_states = state_means;
    Matrix means(all_states.rows(), static_cast<Eigen::Index>(aligned.size()) * states);
    std::vector<bool> state_may_skip;
    // Pauses inside the utterance are scored with the leading silence's means (BOS's), as HMM
    // aligners tie their short-pause model to silence. Their own means learn from the speech that
    // the flat start spreads over them and from the few frames they take later, so they could not
    // win a real pause, which then dragged the phones around it out of place (a comma's pause went
    // to the vowel of the word before, shifting that word by a dozen frames).
    const bool tie_pauses = may_skip.front();
    for (std::size_t i = 0; i < aligned.size(); ++i) {
      const bool inner_pause = may_skip[i] && i > 0 && i + 1 < aligned.size();
      const Eigen::Index source = tie_pauses && inner_pause ? aligned.front() : aligned[i];
      means.middleCols(static_cast<Eigen::Index>(i) * states, states) =
          all_states.middleCols(source * states, states);
      for (int s = 0; s < states; ++s) state_may_skip.push_back(may_skip[i] || s >= required);
    }
    Matrix log_likelihood(means.cols(), frames);
    const auto& scale = settings.alignment_channel_weights;
    if (scale.size() == means.rows()) {
      // Distances in units of each mel channel's own spread (a diagonal-covariance Gaussian).
      means = means.array().colwise() * scale.array();
      const Matrix frames_scaled =
          target.middleCols(frame, frames).array().colwise() * scale.array();
      kernels::gaussian_log_likelihood(means, frames_scaled, log_likelihood);
    } else {
      kernels::gaussian_log_likelihood(means, target.middleCols(frame, frames), log_likelihood);
    }
    // A pause at a word boundary inside the utterance costs pause_penalty per frame: it must sound
    // like silence clearly better than the phones around it, so a stop's closure stays with its
    // stop. The edges' silence and pauses at clause punctuation, where speakers do pause, are free.
    for (std::size_t i = 1; i + 1 < aligned.size(); ++i)
      if (timing_of(settings, ids[static_cast<std::size_t>(aligned[i])]) ==
          frontend::SymbolTiming::kMayPause)
        log_likelihood.middleRows(static_cast<Eigen::Index>(i) * states, states).array() -=
            settings.pause_penalty;
    const std::vector<int> d = kernels::monotonic_alignment_search(log_likelihood, state_may_skip);
    for (std::size_t i = 0; i < aligned.size(); ++i)
      for (int s = 0; s < states; ++s) {
        const int frames_of_state = d[i * static_cast<std::size_t>(states) + s];
        durations[static_cast<std::size_t>(aligned[i])] += frames_of_state;
        result.state_durations[static_cast<std::size_t>(aligned[i]) * states + s] = frames_of_state;
      }
    token += tokens;
    frame += frames;
  }
  return result;
}

std::vector<int> even_state_durations(const std::vector<int>& durations, int states) {
  std::vector<int> result(durations.size() * static_cast<std::size_t>(states), 0);
  for (std::size_t k = 0; k < durations.size(); ++k)
    for (int s = 0; s < states; ++s)
      result[k * states + s] =
          (durations[k] * (s + 1) + states - 1) / states - (durations[k] * s + states - 1) / states;
  return result;
}

Matrix log_duration_targets(const std::vector<int>& durations) {
  Matrix log_target(1, static_cast<Eigen::Index>(durations.size()));
  for (std::size_t i = 0; i < durations.size(); ++i)
    log_target(0, static_cast<Eigen::Index>(i)) = std::log1p(static_cast<float>(durations[i]));
  return log_target;
}

}  // namespace tts::acoustic
