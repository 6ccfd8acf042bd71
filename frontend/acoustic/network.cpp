#include "tts/frontend/acoustic/network.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "tts/kernels/alignment.h"
#include "tts/kernels/losses.h"
#include "tts/kernels/sequence.h"

namespace tts::frontend {

namespace {

using kernels::Matrix;

int sum(const std::vector<int>& values) { return std::accumulate(values.begin(), values.end(), 0); }

// The longest a single token may last at synthesis (frames), so a wild prediction cannot ask for
// unbounded memory.
constexpr int kMaxTokenFrames = 1000;

}  // namespace

AcousticPass::AcousticPass(const AcousticWeights& weights, AcousticLossSettings settings)
    : weights_(weights), settings_(settings) {}

void AcousticPass::encode(const std::vector<int32_t>& ids, const std::vector<int>& lengths) {
  const auto& p = weights_.parameters();
  const auto& layout = weights_.layout();
  const int symbols = weights_.config().symbols;
  for (int32_t id : ids)
    if (id < 0 || id >= symbols)
      throw std::invalid_argument("acoustic model: id " + std::to_string(id) +
                                  " is outside the symbol table (0.." +
                                  std::to_string(symbols - 1) + ")");
  embedded_.resize(weights_.config().channels, static_cast<Eigen::Index>(ids.size()));
  kernels::embedding_lookup(p.matrix(layout.embedding), ids, embedded_);
  encoder_acts_.resize(layout.encoder.size());
  encoder_outs_.resize(layout.encoder.size());
  const Matrix* x = &embedded_;
  for (std::size_t i = 0; i < layout.encoder.size(); ++i) {
    conv_block_forward(p, layout.encoder[i], *x, lengths, encoder_acts_[i], encoder_outs_[i],
                       dropout_for(static_cast<int>(i)));
    x = &encoder_outs_[i];
  }
  // The aligner's prior sees the symbol alone, not its context: every occurrence of a phoneme
  // then shares one mean (a monophone model, as HMM forced aligners start from), so alignment
  // search cannot make a bad path look good by giving each position a mean of its own.
  linear_forward(p, layout.prior, embedded_, prior_means_);
}

void AcousticPass::predict_durations(const std::vector<int>& lengths) {
  const auto& p = weights_.parameters();
  const auto& layout = weights_.layout();
  const Matrix& encoded = encoder_outs_.empty() ? embedded_ : encoder_outs_.back();
  duration_acts_.resize(layout.duration.size());
  duration_outs_.resize(layout.duration.size());
  const Matrix* x = &encoded;
  for (std::size_t i = 0; i < layout.duration.size(); ++i) {
    conv_block_forward(p, layout.duration[i], *x, lengths, duration_acts_[i], duration_outs_[i],
                       dropout_for(static_cast<int>(layout.encoder.size() + i)));
    x = &duration_outs_[i];
  }
  linear_forward(p, layout.duration_output, *x, log_durations_);
}

void AcousticPass::decode(const std::vector<int>& frame_lengths) {
  const auto& p = weights_.parameters();
  const auto& layout = weights_.layout();
  const Matrix& encoded = encoder_outs_.empty() ? embedded_ : encoder_outs_.back();
  const Eigen::Index channels = encoded.rows(), frames = sum(durations_);
  decoder_in_.resize(channels + 2, frames);
  kernels::repeat_columns(encoded, durations_, decoder_in_.topRows(channels));
  kernels::token_position_features(durations_, decoder_in_.bottomRows(2));
  decoder_acts_.resize(layout.decoder.size());
  decoder_outs_.resize(layout.decoder.size() + 1);
  linear_forward(p, layout.decoder_input, decoder_in_, decoder_outs_[0]);
  for (std::size_t i = 0; i < layout.decoder.size(); ++i)
    conv_block_forward(
        p, layout.decoder[i], decoder_outs_[i], frame_lengths, decoder_acts_[i],
        decoder_outs_[i + 1],
        dropout_for(static_cast<int>(layout.encoder.size() + layout.duration.size() + i)));
  linear_forward(p, layout.decoder_output, decoder_outs_.back(), predicted_);
}

Dropout AcousticPass::dropout_for(int block) const {
  if (!dropout_active_ || settings_.dropout <= 0.0f) return {};
  // Blocks number well under 64, so every block of every step gets a seed of its own.
  return {settings_.dropout, dropout_seed_ * 64 + static_cast<uint64_t>(block)};
}

kernels::ConstMatrixMap AcousticPass::state_means() const {
  // prior_means_ stacks a token's states vertically (state s in rows s·M..(s+1)·M). In column-major
  // memory that is already M × (tokens · states) with state s of token k in column k·S + s.
  const Eigen::Index mels = weights_.config().n_mels;
  return {prior_means_.data(), mels, prior_means_.size() / mels};
}

SymbolTiming AcousticPass::timing(int32_t id) const {
  const auto& timings = settings_.symbol_timings;
  if (id < 0 || static_cast<std::size_t>(id) >= timings.size()) return SymbolTiming::kSounds;
  return timings[static_cast<std::size_t>(id)];
}

std::vector<int> AcousticPass::flat_start_durations(const AcousticBatch& batch) const {
  std::vector<int> durations(batch.ids.size(), 0);
  std::size_t first = 0;
  Eigen::Index frame_at = 0;
  for (std::size_t u = 0; u < batch.token_lengths.size(); ++u) {
    std::vector<std::size_t> timed;
    for (std::size_t k = first; k < first + static_cast<std::size_t>(batch.token_lengths[u]); ++k)
      if (timing(batch.ids[k]) != SymbolTiming::kNoTime) timed.push_back(k);
    const int frames = batch.frame_lengths[u];
    // The recording's leading and trailing quiet frames go to the edge pause tokens (BOS, EOS)
    // and the rest is spread evenly over the other tokens. Spread over every token, the silence
    // lands in the first and last phonemes, whose models then learn it and keep taking it
    // (docs/acoustic-model.md).
    int lead = 0, trail = 0;
    const float share = settings_.edge_silence_threshold;
    const bool edges = share > 0.0f && timed.size() >= 3 &&
                       timing(batch.ids[timed.front()]) == SymbolTiming::kMayPause &&
                       timing(batch.ids[timed.back()]) == SymbolTiming::kMayPause;
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

std::vector<int> AcousticPass::search_alignment(const std::vector<int32_t>& ids,
                                                const std::vector<int>& token_lengths,
                                                const std::vector<int>& frame_lengths) {
  std::vector<int> durations(ids.size(), 0);
  state_durations_.assign(ids.size() * static_cast<std::size_t>(weights_.config().alignment_states),
                          0);
  Eigen::Index token = 0, frame = 0;
  for (std::size_t u = 0; u < token_lengths.size(); ++u) {
    const int tokens = token_lengths[u], frames = frame_lengths[u];
    // Tokens that take no time (stress, length marks) stay out of the search with 0 frames.
    std::vector<Eigen::Index> aligned;
    std::vector<bool> may_skip;
    for (Eigen::Index k = token; k < token + tokens; ++k) {
      const SymbolTiming t = timing(ids[static_cast<std::size_t>(k)]);
      if (t == SymbolTiming::kNoTime) continue;
      aligned.push_back(k);
      may_skip.push_back(t != SymbolTiming::kSounds);
    }
    const auto sounding = std::count(may_skip.begin(), may_skip.end(), false);
    if (sounding > frames || aligned.empty())
      throw std::invalid_argument("utterance " + std::to_string(u) + " of the batch has " +
                                  std::to_string(sounding) + " tokens that must sound but " +
                                  std::to_string(frames) + " frames");
    // Each aligned token becomes `states` rows in order. When the token must sound, its first
    // `required` states must take a frame each and later ones may be skipped; an utterance too
    // short for that needs one frame a phone.
    const int states = weights_.config().alignment_states;
    int required =
        settings_.min_phone_states > 0 ? std::min(settings_.min_phone_states, states) : states;
    if (static_cast<long>(sounding) * required > frames) required = 1;
    const auto all_states = state_means();
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
    const auto& scale = settings_.alignment_channel_weights;
    if (scale.size() == means.rows()) {
      // Distances in units of each mel channel's own spread (a diagonal-covariance Gaussian).
      means = means.array().colwise() * scale.array();
      const Matrix frames_scaled =
          target_.middleCols(frame, frames).array().colwise() * scale.array();
      kernels::gaussian_log_likelihood(means, frames_scaled, log_likelihood);
    } else {
      kernels::gaussian_log_likelihood(means, target_.middleCols(frame, frames), log_likelihood);
    }
    // A pause at a word boundary inside the utterance costs pause_penalty per frame: it must sound
    // like silence clearly better than the phones around it, so a stop's closure stays with its
    // stop. The edges' silence and pauses at clause punctuation, where speakers do pause, are free.
    for (std::size_t i = 1; i + 1 < aligned.size(); ++i)
      if (timing(ids[static_cast<std::size_t>(aligned[i])]) == SymbolTiming::kMayPause)
        log_likelihood.middleRows(static_cast<Eigen::Index>(i) * states, states).array() -=
            settings_.pause_penalty;
    const std::vector<int> d = kernels::monotonic_alignment_search(log_likelihood, state_may_skip);
    for (std::size_t i = 0; i < aligned.size(); ++i)
      for (int s = 0; s < states; ++s) {
        const int frames_of_state = d[i * static_cast<std::size_t>(states) + s];
        durations[static_cast<std::size_t>(aligned[i])] += frames_of_state;
        state_durations_[static_cast<std::size_t>(aligned[i]) * states + s] = frames_of_state;
      }
    token += tokens;
    frame += frames;
  }
  return durations;
}

std::vector<int> AcousticPass::align(const AcousticBatch& batch) {
  const auto& c = weights_.config();
  target_ = (batch.mel.array() - c.mel_mean) / c.mel_std;
  encode(batch.ids, batch.token_lengths);
  return search_alignment(batch.ids, batch.token_lengths, batch.frame_lengths);
}

AcousticLosses AcousticPass::forward(const AcousticBatch& batch, const std::vector<int>& durations,
                                     uint64_t dropout_seed) {
  const auto& c = weights_.config();
  if (batch.token_lengths.size() != batch.frame_lengths.size() || batch.token_lengths.empty() ||
      sum(batch.token_lengths) != static_cast<int>(batch.ids.size()) ||
      sum(batch.frame_lengths) != batch.mel.cols() || batch.mel.rows() != c.n_mels)
    throw std::invalid_argument("acoustic batch: ids, lengths and mel frames do not agree");
  if (!durations.empty() && durations.size() != batch.ids.size())
    throw std::invalid_argument("acoustic batch: one duration per id is needed");
  batch_ = &batch;
  dropout_active_ = true;
  dropout_seed_ = dropout_seed;
  struct EndDropout {
    bool& active;
    ~EndDropout() { active = false; }
  } end_dropout{dropout_active_};
  target_ = (batch.mel.array() - c.mel_mean) / c.mel_std;
  encode(batch.ids, batch.token_lengths);
  if (durations.empty()) {
    durations_ = search_alignment(batch.ids, batch.token_lengths, batch.frame_lengths);
  } else {
    durations_ = durations;
    std::size_t first = 0;
    for (std::size_t u = 0; u < batch.token_lengths.size(); ++u) {
      const auto begin = durations.begin() + static_cast<std::ptrdiff_t>(first);
      const auto end = begin + batch.token_lengths[u];
      bool valid = std::accumulate(begin, end, 0) == batch.frame_lengths[u];
      for (std::size_t k = first; k < first + static_cast<std::size_t>(batch.token_lengths[u]); ++k)
        valid = valid && (durations[k] > 0 ||
                          (durations[k] == 0 && timing(batch.ids[k]) != SymbolTiming::kSounds));
      if (!valid)
        throw std::invalid_argument("acoustic batch: durations of utterance " + std::to_string(u) +
                                    " must sum to its frames and be >= 1 (0 only for symbols "
                                    "that may be skipped)");
      first += static_cast<std::size_t>(batch.token_lengths[u]);
    }
    // Given durations say nothing of states: each token's frames are split between them evenly,
    // the first states taking the odd frames.
    const int states = c.alignment_states;
    state_durations_.assign(durations.size() * static_cast<std::size_t>(states), 0);
    for (std::size_t k = 0; k < durations.size(); ++k)
      for (int s = 0; s < states; ++s)
        state_durations_[k * states + s] = (durations[k] * (s + 1) + states - 1) / states -
                                           (durations[k] * s + states - 1) / states;
  }
  predict_durations(batch.token_lengths);
  decode(batch.frame_lengths);

  AcousticLosses losses;
  d_predicted_.resize(predicted_.rows(), predicted_.cols());
  losses.mel = settings_.l1_mel ? kernels::l1_loss(predicted_, target_, d_predicted_)
                                : kernels::mse_loss(predicted_, target_, d_predicted_);
  Matrix prior_frames(c.n_mels, target_.cols());
  kernels::repeat_columns(state_means(), state_durations_, prior_frames);
  d_prior_frames_.resize(prior_frames.rows(), prior_frames.cols());
  losses.prior = 0.5 * kernels::mse_loss(prior_frames, target_, d_prior_frames_,
                                         0.5f * settings_.prior_weight);
  Matrix log_target(1, static_cast<Eigen::Index>(durations_.size()));
  for (std::size_t i = 0; i < durations_.size(); ++i)
    log_target(0, static_cast<Eigen::Index>(i)) = std::log1p(static_cast<float>(durations_[i]));
  d_log_durations_.resize(1, log_target.cols());
  losses.duration =
      kernels::mse_loss(log_durations_, log_target, d_log_durations_, settings_.duration_weight);
  losses.total = losses.mel + settings_.prior_weight * losses.prior +
                 settings_.duration_weight * losses.duration;
  return losses;
}

void AcousticPass::backward(kernels::ParameterSet& grads) {
  if (!batch_) throw std::logic_error("AcousticPass::backward before forward");
  const auto& p = weights_.parameters();
  const auto& layout = weights_.layout();
  const AcousticBatch& batch = *batch_;
  const Matrix& encoded = encoder_outs_.empty() ? embedded_ : encoder_outs_.back();
  const Eigen::Index channels = encoded.rows(), tokens = encoded.cols();

  // Decoder, back to the expanded encoder states.
  Matrix d_hidden = Matrix::Zero(decoder_outs_.back().rows(), predicted_.cols());
  linear_backward(p, layout.decoder_output, decoder_outs_.back(), d_predicted_, grads, d_hidden);
  for (std::size_t i = layout.decoder.size(); i-- > 0;) {
    Matrix d_in = Matrix::Zero(decoder_outs_[i].rows(), decoder_outs_[i].cols());
    conv_block_backward(p, layout.decoder[i], batch.frame_lengths, decoder_acts_[i], d_hidden,
                        grads, d_in);
    d_hidden.swap(d_in);
  }
  Matrix d_decoder_in = Matrix::Zero(decoder_in_.rows(), decoder_in_.cols());
  linear_backward(p, layout.decoder_input, decoder_in_, d_hidden, grads, d_decoder_in);
  Matrix d_encoded = Matrix::Zero(channels, tokens);
  kernels::repeat_columns_backward(d_decoder_in.topRows(channels), durations_, d_encoded);

  // Prior means.
  Matrix d_means = Matrix::Zero(prior_means_.rows(), tokens);
  const Eigen::Index mels = weights_.config().n_mels;
  kernels::repeat_columns_backward(d_prior_frames_, state_durations_,
                                   kernels::MatrixMap(d_means.data(), mels, d_means.size() / mels));
  Matrix d_embedded = Matrix::Zero(channels, tokens);
  linear_backward(p, layout.prior, embedded_, d_means, grads, d_embedded);

  // Duration predictor.
  Matrix d_duration = Matrix::Zero(duration_outs_.back().rows(), tokens);
  linear_backward(p, layout.duration_output, duration_outs_.back(), d_log_durations_, grads,
                  d_duration);
  for (std::size_t i = layout.duration.size(); i-- > 0;) {
    if (i == 0) {
      conv_block_backward(p, layout.duration[0], batch.token_lengths, duration_acts_[0], d_duration,
                          grads, d_encoded);
    } else {
      Matrix d_in = Matrix::Zero(duration_outs_[i - 1].rows(), tokens);
      conv_block_backward(p, layout.duration[i], batch.token_lengths, duration_acts_[i], d_duration,
                          grads, d_in);
      d_duration.swap(d_in);
    }
  }

  // Encoder and embedding.
  for (std::size_t i = layout.encoder.size(); i-- > 0;) {
    Matrix d_in = Matrix::Zero(channels, tokens);
    conv_block_backward(p, layout.encoder[i], batch.token_lengths, encoder_acts_[i], d_encoded,
                        grads, d_in);
    d_encoded.swap(d_in);
  }
  d_encoded += d_embedded;
  kernels::embedding_backward(d_encoded, batch.ids, grads.matrix(layout.embedding));
}

void AcousticPass::synthesize(const std::vector<int32_t>& ids, float rate,
                              std::vector<int>& durations, Matrix& mel) {
  if (ids.empty()) throw std::invalid_argument("acoustic model: no ids to synthesise");
  if (!(rate > 0.0f) || !std::isfinite(rate))
    throw std::invalid_argument("acoustic model: rate must be positive and finite");
  const std::vector<int> lengths = {static_cast<int>(ids.size())};
  encode(ids, lengths);
  predict_durations(lengths);
  durations_.resize(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const double log_frames = log_durations_(0, static_cast<Eigen::Index>(i));
    const double frames = std::isnan(log_frames) ? 1.0 : std::expm1(log_frames) / rate;
    const SymbolTiming t = timing(ids[i]);
    const double least = t == SymbolTiming::kSounds ? 1.0 : 0.0;
    const double most = t == SymbolTiming::kNoTime ? 0.0 : double{kMaxTokenFrames};
    durations_[i] = static_cast<int>(std::clamp(std::round(frames), least, most));
  }
  decode({sum(durations_)});
  const auto& c = weights_.config();
  mel = (predicted_.array() * c.mel_std + c.mel_mean).matrix();
  durations = durations_;
}

}  // namespace tts::frontend
