#include "tts/frontend/acoustic/network.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "tts/frontend/acoustic/alignment_targets.h"
#include "tts/frontend/acoustic/variance_adaptor.h"
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

// The largest pitch shift synthesis accepts: two octaves either way, beyond which the embedding's
// buckets (50-800 Hz) clamp anyway.
constexpr float kMaxPitchShiftSemitones = 24.0f;

// Adds the seconds since the last lap to `*slot` (nothing when timing is off).
class Laps {
 public:
  explicit Laps(bool on) : on_(on), last_(on ? Clock::now() : Clock::time_point{}) {}
  void lap(double* slot) {
    if (!on_) return;
    const auto now = Clock::now();
    *slot += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool on_;
  Clock::time_point last_;
};

}  // namespace

AcousticPass::AcousticPass(const AcousticWeights& weights, AcousticLossSettings settings)
    : weights_(weights), settings_(settings) {}

void AcousticPass::encode(const std::vector<int32_t>& ids, const std::vector<int>& lengths,
                          const std::vector<int>& speakers) {
  const auto& p = weights_.parameters();
  const auto& layout = weights_.layout();
  const int symbols = weights_.config().symbols;
  for (int32_t id : ids)
    if (id < 0 || id >= symbols)
      throw std::invalid_argument("acoustic model: id " + std::to_string(id) +
                                  " is outside the symbol table (0.." +
                                  std::to_string(symbols - 1) + ")");
  const int speaker_count = weights_.config().speakers;
  if (!speakers.empty() && speakers.size() != lengths.size())
    throw std::invalid_argument("acoustic batch: " + std::to_string(speakers.size()) +
                                " speakers for " + std::to_string(lengths.size()) + " utterances");
  for (int s : speakers)
    if (s < 0 || s >= speaker_count)
      throw std::invalid_argument("acoustic model: speaker " + std::to_string(s) +
                                  " is outside the model's speakers (0.." +
                                  std::to_string(speaker_count - 1) + ")");
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
  if (layout.speaker_embedding >= 0) {
    const int fallback = weights_.config().speaker;
    token_speakers_.clear();
    for (std::size_t u = 0; u < lengths.size(); ++u)
      token_speakers_.insert(token_speakers_.end(), static_cast<std::size_t>(lengths[u]),
                             speakers.empty() ? fallback : speakers[u]);
    with_speaker_.resize(x->rows(), x->cols());
    kernels::embedding_lookup(p.matrix(layout.speaker_embedding), token_speakers_, with_speaker_);
    with_speaker_ += *x;
  }
  // The aligner's prior sees the symbol alone, not its context: every occurrence of a phoneme
  // then shares one mean (a monophone model, as HMM forced aligners start from), so alignment
  // search cannot make a bad path look good by giving each position a mean of its own.
  linear_forward(p, layout.prior, embedded_, prior_means_);
}

const Matrix& AcousticPass::encoded() const {
  if (weights_.layout().speaker_embedding >= 0) return with_speaker_;
  return encoder_outs_.empty() ? embedded_ : encoder_outs_.back();
}

void AcousticPass::predict_durations(const std::vector<int>& lengths) {
  const auto& p = weights_.parameters();
  const auto& layout = weights_.layout();
  const Matrix& encoded = this->encoded();
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
  const Matrix& encoded = this->encoded();
  const Eigen::Index channels = encoded.rows(), frames = sum(durations_);
  Laps laps(phase_times_ != nullptr);
  decoder_in_.resize(channels + 2, frames);
  kernels::repeat_columns(encoded, durations_, decoder_in_.topRows(channels));
  kernels::token_position_features(durations_, decoder_in_.bottomRows(2));
  decoder_acts_.resize(layout.decoder.size());
  decoder_outs_.resize(layout.decoder.size() + 1);
  linear_forward(p, layout.decoder_input, decoder_in_, decoder_outs_[0]);
  if (layout.has_variance) {
    const int bins = weights_.config().variance_bins;
    bucket_coordinates(frame_log_f0_, std::log(kPitchBucketLowHz), std::log(kPitchBucketHighHz),
                       bins, pitch_bucket_, pitch_bucket_weight_);
    bucket_coordinates(frame_energy_z_, -kEnergyBucketRange, kEnergyBucketRange, bins,
                       energy_bucket_, energy_bucket_weight_);
    kernels::add_interpolated_columns(p.matrix(layout.pitch.embedding), pitch_bucket_,
                                      pitch_bucket_weight_, decoder_outs_[0]);
    kernels::add_interpolated_columns(p.matrix(layout.energy.embedding), energy_bucket_,
                                      energy_bucket_weight_, decoder_outs_[0]);
  }
  if (phase_times_) laps.lap(&phase_times_->length_regulation);
  for (std::size_t i = 0; i < layout.decoder.size(); ++i)
    conv_block_forward(
        p, layout.decoder[i], decoder_outs_[i], frame_lengths, decoder_acts_[i],
        decoder_outs_[i + 1],
        dropout_for(static_cast<int>(layout.encoder.size() + layout.duration.size() + i)));
  if (phase_times_) laps.lap(&phase_times_->decoder);
  linear_forward(p, layout.decoder_output, decoder_outs_.back(), predicted_);
  if (phase_times_) laps.lap(&phase_times_->output);
}

void AcousticPass::predict_variances(const std::vector<int>& lengths) {
  const auto& layout = weights_.layout();
  if (!layout.has_variance) {
    pitch_.predicted.resize(0, 0);
    energy_.predicted.resize(0, 0);
    return;
  }
  const auto& p = weights_.parameters();
  const Matrix& encoded = this->encoded();
  // Their blocks are numbered after the decoder's for dropout.
  const int first =
      static_cast<int>(layout.encoder.size() + layout.duration.size() + layout.decoder.size());
  auto dropouts = [&](int offset, const VarianceLayout& v) {
    std::vector<Dropout> d;
    for (std::size_t i = 0; i < v.blocks.size(); ++i)
      d.push_back(dropout_for(first + offset + static_cast<int>(i)));
    return d;
  };
  variance_predictor_forward(p, layout.pitch, encoded, lengths, pitch_, dropouts(0, layout.pitch));
  variance_predictor_forward(p, layout.energy, encoded, lengths, energy_,
                             dropouts(static_cast<int>(layout.pitch.blocks.size()), layout.energy));
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

SymbolTiming AcousticPass::timing(int32_t id) const { return timing_of(settings_, id); }

std::vector<int> AcousticPass::flat_start_durations(const AcousticBatch& batch) const {
  return frontend::flat_start_durations(batch, settings_);
}

std::vector<int> AcousticPass::search_alignment(const AcousticBatch& batch) {
  TokenAlignment alignment = frontend::search_alignment(state_means(), target_, batch, settings_,
                                                        weights_.config().alignment_states);
  state_durations_ = std::move(alignment.state_durations);
  return std::move(alignment.durations);
}

std::vector<int> AcousticPass::align(const AcousticBatch& batch) {
  const auto& c = weights_.config();
  target_ = (batch.mel.array() - c.mel_mean) / c.mel_std;
  encode(batch.ids, batch.token_lengths, batch.speakers);
  return search_alignment(batch);
}

AcousticLosses AcousticPass::forward(const AcousticBatch& batch, const std::vector<int>& durations,
                                     uint64_t dropout_seed) {
  const auto& c = weights_.config();
  check_acoustic_batch(batch, c);
  if (!durations.empty()) check_given_durations(batch, durations, settings_);
  batch_ = &batch;
  dropout_active_ = true;
  dropout_seed_ = dropout_seed;
  struct EndDropout {
    bool& active;
    ~EndDropout() { active = false; }
  } end_dropout{dropout_active_};
  target_ = (batch.mel.array() - c.mel_mean) / c.mel_std;
  encode(batch.ids, batch.token_lengths, batch.speakers);
  if (durations.empty()) {
    durations_ = search_alignment(batch);
  } else {
    durations_ = durations;
    state_durations_ = even_state_durations(durations, c.alignment_states);
  }
  predict_durations(batch.token_lengths);
  predict_variances(batch.token_lengths);
  if (weights_.layout().has_variance) {
    FrameVariances v = frame_variances(batch.log_f0, batch.log_energy, c);
    token_means(v.pitch_z, durations_, pitch_target_, variance_mask_);
    token_means(v.energy_z, durations_, energy_target_, variance_mask_);
    frame_log_f0_ = std::move(v.log_f0);
    frame_energy_z_ = std::move(v.energy_z);
  }
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
  const Matrix log_target = log_duration_targets(durations_);
  d_log_durations_.resize(1, log_target.cols());
  losses.duration =
      kernels::mse_loss(log_durations_, log_target, d_log_durations_, settings_.duration_weight);
  losses.total = losses.mel + settings_.prior_weight * losses.prior +
                 settings_.duration_weight * losses.duration;
  if (weights_.layout().has_variance) {
    losses.pitch = masked_mse(pitch_.predicted, pitch_target_, variance_mask_, d_pitch_,
                              settings_.pitch_weight);
    losses.energy = masked_mse(energy_.predicted, energy_target_, variance_mask_, d_energy_,
                               settings_.energy_weight);
    losses.total += settings_.pitch_weight * losses.pitch + settings_.energy_weight * losses.energy;
  }
  return losses;
}

void AcousticPass::backward(kernels::ParameterSet& grads) {
  if (!batch_) throw std::logic_error("AcousticPass::backward before forward");
  const auto& p = weights_.parameters();
  const auto& layout = weights_.layout();
  const AcousticBatch& batch = *batch_;
  const Matrix& encoded = this->encoded();
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
  if (layout.has_variance) {
    // The embeddings' buckets are read, not learned through: the contours are data (training) or
    // the predictors' output (synthesis), and the predictors learn from their own losses.
    kernels::add_interpolated_columns_backward(d_hidden, pitch_bucket_, pitch_bucket_weight_,
                                               grads.matrix(layout.pitch.embedding));
    kernels::add_interpolated_columns_backward(d_hidden, energy_bucket_, energy_bucket_weight_,
                                               grads.matrix(layout.energy.embedding));
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

  // Variance predictors.
  if (layout.has_variance) {
    variance_predictor_backward(p, layout.pitch, batch.token_lengths, pitch_, d_pitch_, grads,
                                d_encoded);
    variance_predictor_backward(p, layout.energy, batch.token_lengths, energy_, d_energy_, grads,
                                d_encoded);
  }

  // Speaker vectors (added to the encoder's output, whose gradient d_encoded also is), then the
  // encoder and the embedding.
  if (layout.speaker_embedding >= 0)
    kernels::embedding_backward(d_encoded, token_speakers_, grads.matrix(layout.speaker_embedding));
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
                              std::vector<int>& durations, Matrix& mel, float pitch_semitones,
                              std::vector<float>* token_f0_hz) {
  if (ids.empty()) throw std::invalid_argument("acoustic model: no ids to synthesise");
  if (!(rate > 0.0f) || !std::isfinite(rate))
    throw std::invalid_argument("acoustic model: rate must be positive and finite");
  const bool has_variance = weights_.layout().has_variance;
  if (!std::isfinite(pitch_semitones) || std::abs(pitch_semitones) > kMaxPitchShiftSemitones)
    throw std::invalid_argument("acoustic model: pitch shift must be within ±" +
                                std::to_string(static_cast<int>(kMaxPitchShiftSemitones)) +
                                " semitones");
  if (pitch_semitones != 0.0f && !has_variance)
    throw std::invalid_argument(
        "acoustic model: this model has no pitch predictor (acoustic format_version 2), so it "
        "cannot shift the pitch; retrain it with this version of tts");
  const std::vector<int> lengths = {static_cast<int>(ids.size())};
  if (phase_times_) *phase_times_ = {};
  Laps laps(phase_times_ != nullptr);
  encode(ids, lengths, {});
  if (phase_times_) laps.lap(&phase_times_->encoder);
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
  if (phase_times_) laps.lap(&phase_times_->durations);
  const auto& c = weights_.config();
  predict_variances(lengths);
  if (token_f0_hz) token_f0_hz->assign(ids.size(), 0.0f);
  if (has_variance) {
    // The shift moves every frame's log F0, so the embedding reads the raised contour.
    const float shift = pitch_semitones * std::log(2.0f) / 12.0f;
    Matrix token_log_f0 =
        (spread_pitch(pitch_.predicted, durations_, c.pitch_spread).array() * c.pitch_std +
         c.pitch_mean + shift)
            .matrix();
    tokens_to_frames(token_log_f0, durations_, frame_log_f0_);
    tokens_to_frames(energy_.predicted, durations_, frame_energy_z_);
    if (token_f0_hz)
      for (std::size_t k = 0; k < ids.size(); ++k)
        (*token_f0_hz)[k] = std::exp(token_log_f0(0, static_cast<Eigen::Index>(k)));
  }
  if (phase_times_) laps.lap(&phase_times_->variances);
  decode({sum(durations_)});  // times its own stages
  mel = (predicted_.array() * c.mel_std + c.mel_mean).matrix();
  durations = durations_;
}

}  // namespace tts::frontend
