#include "tts/acoustic/network.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "tts/acoustic/alignment_targets.h"
#include "tts/acoustic/variance_adaptor.h"
#include "tts/kernels/alignment.h"
#include "tts/kernels/ops/backends.h"

namespace tts::acoustic {

namespace {

using kernels::Matrix;
using kernels::View;

int total_of(const std::vector<int>& values) {
  return std::accumulate(values.begin(), values.end(), 0);
}

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
    : AcousticPass(weights, std::move(settings), kernels::cpu_backend()) {}

AcousticPass::AcousticPass(const AcousticWeights& weights, AcousticLossSettings settings,
                           kernels::Backend& backend, kernels::GemmPrecision precision)
    : weights_(weights), settings_(std::move(settings)), backend_(backend), precision_(precision) {}

std::string AcousticPass::describe() const { return kernels::describe(backend_, precision_); }

void AcousticPass::read_weights() {
  const kernels::ParameterSet& params = weights_.parameters();
  weights_view_ =
      weights_on_device_.read_from_host(params.data(), static_cast<int>(params.size()), 1);
}

LayerContext AcousticPass::context(View gradients) const {
  return {backend_, precision_, &weights_.parameters(), weights_view_, gradients};
}

kernels::ConstMatrixMap AcousticPass::on_host(const kernels::Buffer& buffer,
                                              Matrix& scratch) const {
  const View v = buffer.view();
  if (backend_.host_resident()) return {v.data, v.rows, v.cols};
  scratch = buffer.download();
  return {scratch.data(), scratch.rows(), scratch.cols()};
}

void AcousticPass::encode(const std::vector<int32_t>& ids, const std::vector<int>& lengths,
                          const std::vector<int>& speakers) {
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
  kernels::Backend& B = backend_;
  const LayerContext c = context();
  ids_->assign(ids, symbols);
  token_lengths_->assign(lengths);
  embedded_.resize(weights_.config().channels, static_cast<int>(ids.size()));
  B.embedding_lookup(c.p(layout.embedding), *ids_, embedded_.view());
  reserve_blocks(encoder_acts_, layout.encoder.size(), B);
  while (encoder_outs_.size() < layout.encoder.size()) encoder_outs_.emplace_back(B);
  View x = embedded_.view();
  for (std::size_t i = 0; i < layout.encoder.size(); ++i) {
    conv_block_forward(c, layout.encoder[i], x, *token_lengths_, encoder_acts_[i], encoder_outs_[i],
                       dropout_for(static_cast<int>(i)));
    x = encoder_outs_[i].view();
  }
  if (layout.speaker_embedding >= 0) {
    const int fallback = weights_.config().speaker;
    token_speakers_.clear();
    for (std::size_t u = 0; u < lengths.size(); ++u)
      token_speakers_.insert(token_speakers_.end(), static_cast<std::size_t>(lengths[u]),
                             speakers.empty() ? fallback : speakers[u]);
    speaker_ids_->assign(token_speakers_, speaker_count);
    with_speaker_.resize(x.rows, x.cols);
    B.embedding_lookup(c.p(layout.speaker_embedding), *speaker_ids_, with_speaker_.view());
    B.add(x, with_speaker_.view());
  }
  // The aligner's prior sees the symbol alone, not its context: every occurrence of a phoneme
  // then shares one mean (a monophone model, as HMM forced aligners start from), so alignment
  // search cannot make a bad path look good by giving each position a mean of its own.
  linear_forward(c, layout.prior, embedded_.view(), prior_means_);
}

View AcousticPass::encoded() const {
  const auto& layout = weights_.layout();
  if (layout.speaker_embedding >= 0) return with_speaker_.view();
  return layout.encoder.empty() ? embedded_.view()
                                : encoder_outs_[layout.encoder.size() - 1].view();
}

void AcousticPass::predict_durations() {
  const auto& layout = weights_.layout();
  const LayerContext c = context();
  reserve_blocks(duration_acts_, layout.duration.size(), backend_);
  while (duration_outs_.size() < layout.duration.size()) duration_outs_.emplace_back(backend_);
  View x = encoded();
  for (std::size_t i = 0; i < layout.duration.size(); ++i) {
    conv_block_forward(c, layout.duration[i], x, *token_lengths_, duration_acts_[i],
                       duration_outs_[i], dropout_for(static_cast<int>(layout.encoder.size() + i)));
    x = duration_outs_[i].view();
  }
  linear_forward(c, layout.duration_output, x, log_durations_);
}

void AcousticPass::decode(const std::vector<int>& frame_lengths) {
  regulate_lengths();
  run_decoder(decoder_outs_[0].view(), frame_lengths);
}

void AcousticPass::regulate_lengths() {
  kernels::Backend& B = backend_;
  const LayerContext c = context();
  const auto& layout = weights_.layout();
  const View encoded = this->encoded();
  const int channels = encoded.rows, frames = total_of(durations_);
  Laps laps(phase_times_ != nullptr);
  token_repeats_->assign(durations_);
  decoder_in_.resize(channels + 2, frames);
  B.repeat_columns(encoded, *token_repeats_, decoder_in_.view().top_rows(channels));
  positions_.resize(2, frames);
  kernels::token_position_features(durations_, positions_);
  B.upload(positions_.data(), decoder_in_.view().bottom_rows(2));
  reserve_blocks(decoder_acts_, layout.decoder.size(), B);
  while (decoder_outs_.size() < layout.decoder.size() + 1) decoder_outs_.emplace_back(B);
  linear_forward(c, layout.decoder_input, decoder_in_.view(), decoder_outs_[0]);
  if (layout.has_variance) {
    const int bins = weights_.config().variance_bins;
    std::vector<int32_t> index;
    std::vector<float> weight;
    bucket_coordinates(frame_log_f0_, std::log(kPitchBucketLowHz), std::log(kPitchBucketHighHz),
                       bins, index, weight);
    pitch_buckets_->assign(index, weight, bins);
    bucket_coordinates(frame_energy_z_, -kEnergyBucketRange, kEnergyBucketRange, bins, index,
                       weight);
    energy_buckets_->assign(index, weight, bins);
    B.add_interpolated_columns(c.p(layout.pitch.embedding), *pitch_buckets_,
                               decoder_outs_[0].view());
    B.add_interpolated_columns(c.p(layout.energy.embedding), *energy_buckets_,
                               decoder_outs_[0].view());
  }
  if (phase_times_) laps.lap(&phase_times_->length_regulation);
}

void AcousticPass::run_decoder(View input, const std::vector<int>& frame_lengths) {
  const LayerContext c = context();
  const auto& layout = weights_.layout();
  Laps laps(phase_times_ != nullptr);
  frame_lengths_->assign(frame_lengths);
  View x = input;
  for (std::size_t i = 0; i < layout.decoder.size(); ++i) {
    conv_block_forward(
        c, layout.decoder[i], x, *frame_lengths_, decoder_acts_[i], decoder_outs_[i + 1],
        dropout_for(static_cast<int>(layout.encoder.size() + layout.duration.size() + i)));
    x = decoder_outs_[i + 1].view();
  }
  if (phase_times_) laps.lap(&phase_times_->decoder);
  linear_forward(c, layout.decoder_output, x, predicted_);
  if (phase_times_) laps.lap(&phase_times_->output);
}

void AcousticPass::predict_variances() {
  const auto& layout = weights_.layout();
  if (!layout.has_variance) {
    pitch_.predicted.resize(0, 0);
    energy_.predicted.resize(0, 0);
    return;
  }
  const LayerContext c = context();
  const View encoded = this->encoded();
  // Their blocks are numbered after the decoder's for dropout.
  const int first =
      static_cast<int>(layout.encoder.size() + layout.duration.size() + layout.decoder.size());
  auto dropouts = [&](int offset, const VarianceLayout& v) {
    std::vector<Dropout> d;
    for (std::size_t i = 0; i < v.blocks.size(); ++i)
      d.push_back(dropout_for(first + offset + static_cast<int>(i)));
    return d;
  };
  variance_predictor_forward(c, layout.pitch, encoded, *token_lengths_, pitch_,
                             dropouts(0, layout.pitch));
  variance_predictor_forward(c, layout.energy, encoded, *token_lengths_, energy_,
                             dropouts(static_cast<int>(layout.pitch.blocks.size()), layout.energy));
}

Dropout AcousticPass::dropout_for(int block) const {
  if (!dropout_active_ || settings_.dropout <= 0.0f) return {};
  // Blocks number well under 64, so every block of every step gets a seed of its own.
  return {settings_.dropout, dropout_seed_ * 64 + static_cast<uint64_t>(block)};
}

View AcousticPass::state_means() const {
  // prior_means_ stacks a token's states vertically (state s in rows s·M..(s+1)·M). In column-major
  // memory that is already M × (tokens · states) with state s of token k in column k·S + s.
  const int mels = weights_.config().n_mels;
  const View means = prior_means_.view();
  return {means.data, mels, static_cast<int>(means.size() / mels), mels};
}

frontend::SymbolTiming AcousticPass::timing(int32_t id) const { return timing_of(settings_, id); }

std::vector<int> AcousticPass::flat_start_durations(const AcousticBatch& batch) const {
  return acoustic::flat_start_durations(batch, settings_);
}

std::vector<int> AcousticPass::search_alignment(const AcousticBatch& batch) {
  // The search runs on the host, on the prior's means (which come down from a device for it).
  const kernels::ConstMatrixMap means = on_host(prior_means_, means_host_);
  const int mels = weights_.config().n_mels;
  TokenAlignment alignment = acoustic::search_alignment(
      kernels::ConstMatrixMap(means.data(), mels, means.size() / mels), target_host_, batch,
      settings_, weights_.config().alignment_states);
  state_durations_ = std::move(alignment.state_durations);
  return std::move(alignment.durations);
}

std::vector<int> AcousticPass::align(const AcousticBatch& batch) {
  const auto& c = weights_.config();
  have_forward_ = false;
  read_weights();
  target_host_ = (batch.mel.array() - c.mel_mean) / c.mel_std;
  encode(batch.ids, batch.token_lengths, batch.speakers);
  return search_alignment(batch);
}

AcousticLosses AcousticPass::forward(const AcousticBatch& batch, const std::vector<int>& durations,
                                     uint64_t dropout_seed, const LossNormalisers& normalisers) {
  const auto& c = weights_.config();
  check_acoustic_batch(batch, c);
  if (!durations.empty()) check_given_durations(batch, durations, settings_);
  kernels::Backend& B = backend_;
  have_forward_ = false;
  read_weights();
  dropout_active_ = true;
  dropout_seed_ = dropout_seed;
  struct EndDropout {
    bool& active;
    ~EndDropout() { active = false; }
  } end_dropout{dropout_active_};
  const int mels = c.n_mels, frames = static_cast<int>(batch.mel.cols());
  target_host_ = (batch.mel.array() - c.mel_mean) / c.mel_std;
  target_ = target_on_device_.read_from_host(target_host_.data(), mels, frames);
  encode(batch.ids, batch.token_lengths, batch.speakers);
  if (durations.empty()) {
    durations_ = search_alignment(batch);
  } else {
    durations_ = durations;
    state_durations_ = even_state_durations(durations, c.alignment_states);
  }
  state_repeats_->assign(state_durations_);
  predict_durations();
  predict_variances();
  if (weights_.layout().has_variance) {
    FrameVariances v = frame_variances(batch.log_f0, batch.log_energy, c);
    token_means(v.pitch_z, durations_, pitch_target_, variance_mask_);
    token_means(v.energy_z, durations_, energy_target_, variance_mask_);
    frame_log_f0_ = std::move(v.log_f0);
    frame_energy_z_ = std::move(v.energy_z);
  }
  decode(batch.frame_lengths);

  // A loss's share of the mean over `normalisers`' count: the ops take the mean over this batch's
  // own elements, which share scales to the other count (1 when it is this batch's own).
  auto share = [](double own, double of) { return of > 0.0 ? own / of : 1.0; };
  const double frame_share = share(frames, normalisers.frames);
  const float frame_scale = static_cast<float>(frame_share);
  AcousticLosses losses;
  d_predicted_.resize(mels, frames);
  losses.mel =
      frame_share *
      (settings_.l1_mel ? B.l1_loss(predicted_.view(), target_, d_predicted_.view(), frame_scale)
                        : B.mse_loss(predicted_.view(), target_, d_predicted_.view(), frame_scale));
  prior_frames_.resize(mels, frames);
  B.repeat_columns(state_means(), *state_repeats_, prior_frames_.view());
  d_prior_frames_.resize(mels, frames);
  losses.prior = frame_share * 0.5 *
                 B.mse_loss(prior_frames_.view(), target_, d_prior_frames_.view(),
                            static_cast<float>(0.5 * settings_.prior_weight * frame_share));
  log_target_host_ = log_duration_targets(durations_);
  const int tokens = static_cast<int>(log_target_host_.cols());
  log_target_ = log_target_on_device_.read_from_host(log_target_host_.data(), 1, tokens);
  d_log_durations_.resize(1, tokens);
  const double token_share = share(tokens, normalisers.tokens);
  losses.duration =
      token_share * B.mse_loss(log_durations_.view(), log_target_, d_log_durations_.view(),
                               static_cast<float>(settings_.duration_weight * token_share));
  losses.total = losses.mel + settings_.prior_weight * losses.prior +
                 settings_.duration_weight * losses.duration;
  if (weights_.layout().has_variance) {
    // One value per token: the predictions come to the host for the masked MSE, its gradient
    // goes back (in place on the CPU).
    Matrix scratch;
    losses.pitch = masked_mse(on_host(pitch_.predicted, scratch), pitch_target_, variance_mask_,
                              d_pitch_, settings_.pitch_weight, normalisers.sounding_tokens);
    d_pitch_view_ = d_pitch_on_device_.read_from_host(d_pitch_.data(), 1, tokens);
    losses.energy = masked_mse(on_host(energy_.predicted, scratch), energy_target_, variance_mask_,
                               d_energy_, settings_.energy_weight, normalisers.sounding_tokens);
    d_energy_view_ = d_energy_on_device_.read_from_host(d_energy_.data(), 1, tokens);
    losses.total += settings_.pitch_weight * losses.pitch + settings_.energy_weight * losses.energy;
  }
  have_forward_ = true;
  loss_gradient_scale_ = 1.0f;
  return losses;
}

void AcousticPass::backward(kernels::ParameterSet& gradients, float loss_scale) {
  if (!have_forward_) throw std::logic_error("AcousticPass::backward before forward");
  const kernels::ParameterSet& params = weights_.parameters();
  if (gradients.size() != params.size())
    throw std::invalid_argument("AcousticPass::backward: gradients have " +
                                std::to_string(gradients.size()) + " values, the model " +
                                std::to_string(params.size()));
  kernels::Backend& B = backend_;
  const auto& layout = weights_.layout();
  const LayerContext c = context(
      gradients_on_device_.add_to_host(gradients.data(), static_cast<int>(gradients.size()), 1));
  const View encoded = this->encoded();
  const int channels = encoded.rows, tokens = encoded.cols, frames = predicted_.cols();
  // A zeroed rows × cols scratch buffer's view.
  auto zeroed = [&](kernels::Buffer& buffer, int rows, int cols) {
    buffer.resize(rows, cols);
    B.set_zero(buffer.view());
    return buffer.view();
  };

  if (loss_scale != loss_gradient_scale_) {  // never at scale 1: an unscaled pass is unchanged
    const float factor = loss_scale / loss_gradient_scale_;
    B.scale(d_predicted_.view(), factor);
    B.scale(d_prior_frames_.view(), factor);
    B.scale(d_log_durations_.view(), factor);
    if (layout.has_variance) {
      B.scale(d_pitch_view_, factor);
      B.scale(d_energy_view_, factor);
    }
    loss_gradient_scale_ = loss_scale;
  }

  // Decoder, back to the expanded encoder states.
  const View decoded = decoder_outs_[layout.decoder.size()].view();
  linear_backward(c, layout.decoder_output, decoded, d_predicted_.view(),
                  zeroed(d_hidden_, decoded.rows, frames));
  for (std::size_t i = layout.decoder.size(); i-- > 0;) {
    conv_block_backward(c, layout.decoder[i], *frame_lengths_, decoder_acts_[i], d_hidden_.view(),
                        zeroed(d_in_, decoder_outs_[i].rows(), frames), scratch_);
    std::swap(d_hidden_, d_in_);
  }
  if (layout.has_variance) {
    // The embeddings' buckets are read, not learned through: the contours are data (training) or
    // the predictors' output (synthesis), and the predictors learn from their own losses.
    B.add_interpolated_columns_backward(d_hidden_.view(), *pitch_buckets_,
                                        c.g(layout.pitch.embedding));
    B.add_interpolated_columns_backward(d_hidden_.view(), *energy_buckets_,
                                        c.g(layout.energy.embedding));
  }
  linear_backward(c, layout.decoder_input, decoder_in_.view(), d_hidden_.view(),
                  zeroed(d_decoder_in_, decoder_in_.rows(), frames));
  B.repeat_columns_backward(d_decoder_in_.view().top_rows(channels), *token_repeats_,
                            zeroed(d_encoded_, channels, tokens));

  // Prior means.
  const int mels = weights_.config().n_mels, states = weights_.config().alignment_states;
  const View d_means = zeroed(d_means_, prior_means_.rows(), tokens);
  B.repeat_columns_backward(d_prior_frames_.view(), *state_repeats_,
                            {d_means.data, mels, tokens * states, mels});
  linear_backward(c, layout.prior, embedded_.view(), d_means,
                  zeroed(d_embedded_, channels, tokens));

  // Duration predictor.
  const View durations_in = duration_outs_[layout.duration.size() - 1].view();
  linear_backward(c, layout.duration_output, durations_in, d_log_durations_.view(),
                  zeroed(d_duration_, durations_in.rows, tokens));
  for (std::size_t i = layout.duration.size(); i-- > 0;) {
    if (i == 0) {
      conv_block_backward(c, layout.duration[0], *token_lengths_, duration_acts_[0],
                          d_duration_.view(), d_encoded_.view(), scratch_);
    } else {
      conv_block_backward(c, layout.duration[i], *token_lengths_, duration_acts_[i],
                          d_duration_.view(), zeroed(d_in_, duration_outs_[i - 1].rows(), tokens),
                          scratch_);
      std::swap(d_duration_, d_in_);
    }
  }

  // Variance predictors.
  if (layout.has_variance) {
    variance_predictor_backward(c, layout.pitch, *token_lengths_, pitch_, d_pitch_view_,
                                d_encoded_.view(), scratch_);
    variance_predictor_backward(c, layout.energy, *token_lengths_, energy_, d_energy_view_,
                                d_encoded_.view(), scratch_);
  }

  // Speaker vectors (added to the encoder's output, whose gradient d_encoded also is), then the
  // encoder and the embedding.
  if (layout.speaker_embedding >= 0)
    B.embedding_backward(d_encoded_.view(), *speaker_ids_, c.g(layout.speaker_embedding));
  for (std::size_t i = layout.encoder.size(); i-- > 0;) {
    conv_block_backward(c, layout.encoder[i], *token_lengths_, encoder_acts_[i], d_encoded_.view(),
                        zeroed(d_in_, channels, tokens), scratch_);
    std::swap(d_encoded_, d_in_);
  }
  B.add(d_embedded_.view(), d_encoded_.view());
  B.embedding_backward(d_encoded_.view(), *ids_, c.g(layout.embedding));
  gradients_on_device_.finish_adding_to_host(gradients.data());
}

int AcousticPass::begin_synthesis(const std::vector<int32_t>& ids, float rate,
                                  float pitch_semitones, std::vector<int>& durations,
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
  have_forward_ = false;
  read_weights();
  encode(ids, lengths, {});
  if (phase_times_) laps.lap(&phase_times_->encoder);
  predict_durations();
  Matrix scratch;
  const kernels::ConstMatrixMap log_durations = on_host(log_durations_, scratch);
  durations_.resize(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const double log_frames = log_durations(0, static_cast<Eigen::Index>(i));
    const double frames = std::isnan(log_frames) ? 1.0 : std::expm1(log_frames) / rate;
    const frontend::SymbolTiming t = timing(ids[i]);
    const double least = t == frontend::SymbolTiming::kSounds ? 1.0 : 0.0;
    const double most = t == frontend::SymbolTiming::kNoTime ? 0.0 : double{kMaxTokenFrames};
    durations_[i] = static_cast<int>(std::clamp(std::round(frames), least, most));
  }
  if (phase_times_) laps.lap(&phase_times_->durations);
  const auto& c = weights_.config();
  predict_variances();
  if (token_f0_hz) token_f0_hz->assign(ids.size(), 0.0f);
  if (has_variance) {
    // The shift moves every frame's log F0, so the embedding reads the raised contour.
    const float shift = pitch_semitones * std::log(2.0f) / 12.0f;
    Matrix token_log_f0 =
        (spread_pitch(pitch_.predicted.download(), durations_, c.pitch_spread).array() *
             c.pitch_std +
         c.pitch_mean + shift)
            .matrix();
    tokens_to_frames(token_log_f0, durations_, frame_log_f0_);
    tokens_to_frames(energy_.predicted.download(), durations_, frame_energy_z_);
    if (token_f0_hz)
      for (std::size_t k = 0; k < ids.size(); ++k)
        (*token_f0_hz)[k] = std::exp(token_log_f0(0, static_cast<Eigen::Index>(k)));
  }
  if (phase_times_) laps.lap(&phase_times_->variances);
  const int frames = total_of(durations_);
  regulate_lengths();  // times itself
  durations = durations_;
  return frames;
}

int AcousticPass::decoder_context_frames() const {
  int context = 0;
  for (const ConvBlockLayout& block : weights_.layout().decoder) context += block.kernel / 2;
  return context;
}

void AcousticPass::decode_frames(int first, int count, Matrix& mel) {
  const int frames = decoder_in_.cols();
  if (first < 0 || count < 1 || first + count > frames)
    throw std::invalid_argument("acoustic model: frames " + std::to_string(first) + ".." +
                                std::to_string(first + count) + " are outside the sentence's " +
                                std::to_string(frames));
  // The convolutions see no further than the context either side, and the zeros they pad the
  // window with reach no deeper into it than that.
  const int context = decoder_context_frames();
  const int from = std::max(0, first - context), to = std::min(frames, first + count + context);
  run_decoder(decoder_outs_[0].view().middle_cols(from, to - from), {to - from});
  Matrix scratch;
  const auto& c = weights_.config();
  mel = (on_host(predicted_, scratch).middleCols(first - from, count).array() * c.mel_std +
         c.mel_mean)
            .matrix();
}

void AcousticPass::synthesize(const std::vector<int32_t>& ids, float rate,
                              std::vector<int>& durations, Matrix& mel, float pitch_semitones,
                              std::vector<float>* token_f0_hz) {
  const int frames = begin_synthesis(ids, rate, pitch_semitones, durations, token_f0_hz);
  mel.resize(weights_.config().n_mels, frames);  // the windows tile the frames
  Matrix part;
  for (const FrameWindow& w : synthesis_windows(frames, decoder_context_frames())) {
    decode_frames(w.first, w.count, part);
    mel.middleCols(w.first, w.count) = part;
  }
}

std::vector<FrameWindow> synthesis_windows(int frames, int context) {
  if (frames == 0) return {};
  if (frames <= kFirstWindowFrames + context) return {{0, frames}};
  return {{0, kFirstWindowFrames}, {kFirstWindowFrames, frames - kFirstWindowFrames}};
}

}  // namespace tts::acoustic
