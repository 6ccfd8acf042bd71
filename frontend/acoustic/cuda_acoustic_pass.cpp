#include "tts/frontend/acoustic/cuda_acoustic_pass.h"

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tts/frontend/acoustic/alignment_targets.h"
#include "tts/frontend/acoustic/variance_adaptor.h"
#include "tts/kernels/alignment.h"
#include "tts/kernels/cuda/acoustic_ops.h"
#include "tts/kernels/cuda/device_ops.h"
#include "tts/kernels/cuda/device_tensor.h"

namespace tts::frontend {

using kernels::Transpose;
using kernels::cuda::DeviceArray;
using kernels::cuda::DeviceMatrix;
using kernels::cuda::DeviceView;
using kernels::cuda::PackedColumns;
using kernels::cuda::ScatterPlan;
namespace cu = kernels::cuda;

namespace {
constexpr float kNormEpsilon = 1e-5f;  // as layers.cpp

// What a conv block keeps for its backward pass (ConvBlockActivations, on the device).
struct BlockActivations {
  DeviceMatrix unfolded, relu, normalized, inv_std, keep;
  bool dropped = false;
};

// One predictor of the variance adaptor (VariancePredictorActivations) and the embedding of its
// variance: the frames' bucket coordinates and the adjoint's plan over the table's columns.
struct PredictorActivations {
  std::vector<BlockActivations> blocks;
  std::vector<DeviceMatrix> outs;  // per block, V × P
  DeviceMatrix predicted;          // 1 × P
  DeviceMatrix d_predicted;        // 1 × P, from the host's masked MSE
  DeviceArray<std::int32_t> bucket;
  DeviceArray<float> bucket_weight;
  ScatterPlan to_buckets;
};

std::vector<std::int32_t> column_owners(const std::vector<int>& counts) {
  std::vector<std::int32_t> owner;
  for (std::size_t k = 0; k < counts.size(); ++k) owner.insert(owner.end(), counts[k], int(k));
  return owner;
}
}  // namespace

// The buffers AcousticPass keeps on the host, here in device memory.
struct CudaAcousticPass::Device {
  DeviceArray<float> weights, gradients;  // flat, in the ParameterSet's layout
  DeviceArray<std::int32_t> ids, frame_token, frame_state;
  PackedColumns tokens, frames;
  ScatterPlan to_embedding, to_tokens, to_states;  // the adjoints of the three gathers
  DeviceMatrix target, embedded, prior_means, log_durations, log_target, positions;
  DeviceMatrix decoder_in, predicted, prior_frames, d_predicted, d_prior_frames, d_log_durations;
  std::vector<BlockActivations> encoder_acts, duration_acts, decoder_acts;
  std::vector<DeviceMatrix> encoder_outs, duration_outs, decoder_outs;
  PredictorActivations pitch, energy;  // the variance adaptor's, when the model has one
  // Backward scratch.
  DeviceMatrix d_sum, unfold_scratch, d_hidden, d_in, d_decoder_in, d_encoded, d_means, d_embedded,
      d_duration, d_variance;

  const kernels::ParameterSet* layout = nullptr;
  kernels::cuda::GemmPrecision precision = kernels::cuda::GemmPrecision::kFp32;

  static DeviceView entry(DeviceArray<float>& flat, const kernels::ParameterSet& layout,
                          int index) {
    const auto& e = layout.entries().at(index);
    return {flat.data() + e.offset, static_cast<int>(e.rows), static_cast<int>(e.cols),
            static_cast<int>(e.rows)};
  }
  DeviceView p(int index) { return entry(weights, *layout, index); }
  DeviceView g(int index) { return entry(gradients, *layout, index); }

  // y = W·x + b (linear_forward in layers.cpp).
  void linear_forward(const LinearLayout& layer, DeviceView x, DeviceMatrix& y) {
    const DeviceView w = p(layer.weight);
    y.resize(w.rows, x.cols);
    cu::gemm(y.view(), w, Transpose::kNo, x, Transpose::kNo, 1.0f, 0.0f, precision);
    cu::add_bias(y.view(), p(layer.bias));
  }

  // Gradients of W and b, and dx += Wᵀ·dy unless dx has no data.
  void linear_backward(const LinearLayout& layer, DeviceView x, DeviceView dy, DeviceView dx) {
    cu::gemm(g(layer.weight), dy, Transpose::kNo, x, Transpose::kYes, 1.0f, 1.0f, precision);
    cu::accumulate_row_sums(g(layer.bias), dy);
    if (dx.data)
      cu::gemm(dx, p(layer.weight), Transpose::kYes, dy, Transpose::kNo, 1.0f, 1.0f, precision);
  }

  // out = LN(dropout(ReLU(conv(x))) [+ x]) (conv_block_forward in layers.cpp).
  void block_forward(const ConvBlockLayout& block, DeviceView x, const PackedColumns& columns,
                     BlockActivations& a, DeviceMatrix& out, Dropout dropout) {
    const DeviceView weight = p(block.conv);
    const int n = x.cols, width = weight.rows;
    a.unfolded.resize(block.kernel * x.rows, n);
    cu::conv1d_unfold(x, block.kernel, columns, a.unfolded.view());
    a.relu.resize(width, n);
    cu::gemm(a.relu.view(), weight, Transpose::kNo, a.unfolded.view(), Transpose::kNo, 1.0f, 0.0f,
             precision);
    cu::add_bias(a.relu.view(), p(block.conv_bias));
    cu::relu_forward(a.relu.view(), a.relu.view());
    out.resize(width, n);
    a.dropped = dropout.rate > 0.0f;
    if (a.dropped) {
      a.keep.resize(width, n);
      cu::dropout_mask(dropout.rate, dropout.seed, a.keep.view());
      cu::multiply(a.relu.view(), a.keep.view(), out.view());
    } else {
      cu::copy(a.relu.view(), out.view());
    }
    if (block.residual) cu::add(x, out.view());
    a.normalized.resize(width, n);
    a.inv_std.resize(1, n);
    cu::layer_norm_forward(out.view(), p(block.norm_scale), p(block.norm_bias), kNormEpsilon,
                           a.normalized.view(), a.inv_std.view(), out.view());
  }

  // conv_block_backward in layers.cpp: parameter gradients, and dx += the input's gradient unless
  // dx has no data.
  void block_backward(const ConvBlockLayout& block, const PackedColumns& columns,
                      BlockActivations& a, DeviceView d_out, DeviceView dx) {
    d_sum.resize(d_out.rows, d_out.cols);
    cu::layer_norm_backward(d_out, a.normalized.view(), a.inv_std.view(), p(block.norm_scale),
                            d_sum.view(), g(block.norm_scale), g(block.norm_bias));
    if (block.residual && dx.data) cu::add(d_sum.view(), dx);
    if (a.dropped) cu::multiply(d_sum.view(), a.keep.view(), d_sum.view());
    cu::relu_backward(d_sum.view(), a.relu.view(), d_sum.view());
    cu::gemm(g(block.conv), d_sum.view(), Transpose::kNo, a.unfolded.view(), Transpose::kYes, 1.0f,
             1.0f, precision);
    cu::accumulate_row_sums(g(block.conv_bias), d_sum.view());
    if (!dx.data) return;
    unfold_scratch.resize(a.unfolded.rows(), a.unfolded.cols());
    cu::gemm(unfold_scratch.view(), p(block.conv), Transpose::kYes, d_sum.view(), Transpose::kNo,
             1.0f, 0.0f, precision);
    cu::conv1d_unfold_backward(unfold_scratch.view(), block.kernel, columns, dx);
  }

  // variance_predictor_forward: predicted = output(blocks(encoded)) over the tokens; block i drops
  // as dropouts[i].
  void predictor_forward(const VarianceLayout& layer, DeviceView encoded,
                         const std::vector<Dropout>& dropouts, PredictorActivations& a) {
    a.blocks.resize(layer.blocks.size());
    a.outs.resize(layer.blocks.size());
    DeviceView x = encoded;
    for (std::size_t i = 0; i < layer.blocks.size(); ++i) {
      block_forward(layer.blocks[i], x, tokens, a.blocks[i], a.outs[i],
                    i < dropouts.size() ? dropouts[i] : Dropout{});
      x = a.outs[i].view();
    }
    linear_forward(layer.output, x, a.predicted);
  }

  // variance_predictor_backward from a.d_predicted: parameter gradients, and d_encoded += the
  // input's gradient.
  void predictor_backward(const VarianceLayout& layer, PredictorActivations& a,
                          DeviceView d_encoded) {
    const int n = a.predicted.cols();
    d_variance.resize(a.outs.back().rows(), n);
    d_variance.set_zero();
    linear_backward(layer.output, a.outs.back().view(), a.d_predicted.view(), d_variance.view());
    for (std::size_t i = layer.blocks.size(); i-- > 0;) {
      if (i == 0) {
        block_backward(layer.blocks[0], tokens, a.blocks[0], d_variance.view(), d_encoded);
      } else {
        d_in.resize(a.outs[i - 1].rows(), n);
        d_in.set_zero();
        block_backward(layer.blocks[i], tokens, a.blocks[i], d_variance.view(), d_in.view());
        std::swap(d_variance, d_in);
      }
    }
  }
};

namespace {
// The bucket coordinates of a frame contour (AcousticPass::decode), uploaded with the plan of
// their adjoint over the table's `bins` columns.
void upload_buckets(const kernels::Matrix& values, float low, float high, int bins,
                    PredictorActivations& a) {
  std::vector<std::int32_t> index;
  std::vector<float> weight;
  bucket_coordinates(values, low, high, bins, index, weight);
  a.bucket.upload(index);
  a.bucket_weight.upload(weight);
  a.to_buckets = ScatterPlan::for_interpolation(index, weight, bins);
}

// masked_mse of the device's 1 × P predictions against the host's targets. There is no device op
// for it, and it is over one value per token, so the predictions come down, the CPU pass's own
// masked_mse gives the loss and the gradient, and the gradient goes up: exactly the CPU's numbers
// for the same predictions.
double host_masked_mse(PredictorActivations& a, const kernels::Matrix& target,
                       const std::vector<float>& mask, float scale, kernels::Matrix& predicted) {
  predicted.resize(a.predicted.rows(), a.predicted.cols());
  a.predicted.download(predicted);
  kernels::Matrix d_predicted;
  const double loss = masked_mse(predicted, target, mask, d_predicted, scale);
  a.d_predicted.upload(d_predicted);
  return loss;
}
}  // namespace

CudaAcousticPass::CudaAcousticPass(const AcousticWeights& weights, AcousticLossSettings settings,
                                   kernels::cuda::GemmPrecision precision)
    : weights_(weights),
      settings_(std::move(settings)),
      precision_(precision),
      device_(std::make_unique<Device>()) {
  device_->layout = &weights_.parameters();
  device_->precision = precision_;
}

CudaAcousticPass::~CudaAcousticPass() = default;

AcousticLosses CudaAcousticPass::forward(const AcousticBatch& batch,
                                         const std::vector<int>& durations, uint64_t dropout_seed) {
  const AcousticConfig& c = weights_.config();
  const AcousticLayout& layout = weights_.layout();
  const kernels::ParameterSet& params = weights_.parameters();
  check_acoustic_batch(batch, c);
  if (!durations.empty()) check_given_durations(batch, durations, settings_);
  have_forward_ = false;
  Device& d = *device_;
  const int tokens = static_cast<int>(batch.ids.size());
  const int channels = c.channels, mels = c.n_mels, states = c.alignment_states;
  // AcousticPass::dropout_for: a seed of its own for every block of every step.
  auto dropout_for = [&](int block) -> Dropout {
    if (settings_.dropout <= 0.0f) return {};
    return {settings_.dropout, dropout_seed * 64 + static_cast<uint64_t>(block)};
  };

  d.weights.resize(params.size());
  d.weights.upload(params.data(), params.size());
  d.ids.upload(batch.ids);
  d.tokens = PackedColumns(batch.token_lengths);
  d.frames = PackedColumns(batch.frame_lengths);
  d.to_embedding = ScatterPlan::for_embedding(batch.ids, c.symbols);
  const kernels::Matrix target = (batch.mel.array() - c.mel_mean) / c.mel_std;
  d.target.upload(target);

  // Encoder, and the prior's means from the embedding alone (AcousticPass::encode).
  d.embedded.resize(channels, tokens);
  cu::embedding_lookup(d.p(layout.embedding), d.ids, d.embedded.view());
  const std::size_t encoder_blocks = layout.encoder.size();
  d.encoder_acts.resize(encoder_blocks);
  d.encoder_outs.resize(encoder_blocks);
  DeviceView x = d.embedded.view();
  for (std::size_t i = 0; i < encoder_blocks; ++i) {
    d.block_forward(layout.encoder[i], x, d.tokens, d.encoder_acts[i], d.encoder_outs[i],
                    dropout_for(static_cast<int>(i)));
    x = d.encoder_outs[i].view();
  }
  const DeviceView encoded = x;
  d.linear_forward(layout.prior, d.embedded.view(), d.prior_means);
  // The means as M × (tokens · states): state s of token k in column k·S + s (no copy).
  const DeviceView state_means{d.prior_means.view().data, mels, tokens * states, mels};

  // Durations: searched on the host under the prior's means, or given.
  std::vector<int> state_durations;
  if (durations.empty()) {
    kernels::Matrix means(d.prior_means.rows(), d.prior_means.cols());
    d.prior_means.download(means);
    TokenAlignment alignment =
        search_alignment(kernels::ConstMatrixMap(means.data(), mels, means.size() / mels), target,
                         batch, settings_, states);
    durations_ = std::move(alignment.durations);
    state_durations = std::move(alignment.state_durations);
  } else {
    durations_ = durations;
    state_durations = even_state_durations(durations, states);
  }
  const int frames = static_cast<int>(batch.mel.cols());

  // Duration predictor (AcousticPass::predict_durations).
  d.duration_acts.resize(layout.duration.size());
  d.duration_outs.resize(layout.duration.size());
  x = encoded;
  for (std::size_t i = 0; i < layout.duration.size(); ++i) {
    d.block_forward(layout.duration[i], x, d.tokens, d.duration_acts[i], d.duration_outs[i],
                    dropout_for(static_cast<int>(encoder_blocks + i)));
    x = d.duration_outs[i].view();
  }
  d.linear_forward(layout.duration_output, x, d.log_durations);

  // Variance adaptor (AcousticPass::predict_variances, then forward's targets and decode's
  // buckets, on the host from the batch's contours).
  std::vector<float> variance_mask;
  kernels::Matrix pitch_target, energy_target;
  if (layout.has_variance) {
    // Their blocks are numbered after the decoder's for dropout.
    const int first =
        static_cast<int>(encoder_blocks + layout.duration.size() + layout.decoder.size());
    auto dropouts = [&](int offset, const VarianceLayout& v) {
      std::vector<Dropout> drop;
      for (std::size_t i = 0; i < v.blocks.size(); ++i)
        drop.push_back(dropout_for(first + offset + static_cast<int>(i)));
      return drop;
    };
    d.predictor_forward(layout.pitch, encoded, dropouts(0, layout.pitch), d.pitch);
    d.predictor_forward(layout.energy, encoded,
                        dropouts(static_cast<int>(layout.pitch.blocks.size()), layout.energy),
                        d.energy);
    const FrameVariances v = frame_variances(batch.log_f0, batch.log_energy, c);
    token_means(v.pitch_z, durations_, pitch_target, variance_mask);
    token_means(v.energy_z, durations_, energy_target, variance_mask);
    upload_buckets(v.log_f0, std::log(kPitchBucketLowHz), std::log(kPitchBucketHighHz),
                   c.variance_bins, d.pitch);
    upload_buckets(v.energy_z, -kEnergyBucketRange, kEnergyBucketRange, c.variance_bins, d.energy);
  }

  // Decoder (AcousticPass::decode): the encoder states repeated over their frames, with each
  // frame's place in its token.
  const std::vector<std::int32_t> frame_token = column_owners(durations_);
  const std::vector<std::int32_t> frame_state = column_owners(state_durations);
  d.frame_token.upload(frame_token);
  d.frame_state.upload(frame_state);
  d.to_tokens = ScatterPlan::for_embedding(frame_token, tokens);
  d.to_states = ScatterPlan::for_embedding(frame_state, tokens * states);
  d.decoder_in.resize(channels + 2, frames);
  cu::embedding_lookup(encoded, d.frame_token, d.decoder_in.view().top_rows(channels));
  kernels::Matrix positions(2, frames);
  kernels::token_position_features(durations_, positions);
  d.positions.upload(positions);
  cu::copy(d.positions.view(), d.decoder_in.view().bottom_rows(2));
  const std::size_t decoder_blocks = layout.decoder.size();
  d.decoder_acts.resize(decoder_blocks);
  d.decoder_outs.resize(decoder_blocks + 1);
  d.linear_forward(layout.decoder_input, d.decoder_in.view(), d.decoder_outs[0]);
  if (layout.has_variance) {
    cu::add_interpolated_columns(d.p(layout.pitch.embedding), d.pitch.bucket, d.pitch.bucket_weight,
                                 d.decoder_outs[0].view());
    cu::add_interpolated_columns(d.p(layout.energy.embedding), d.energy.bucket,
                                 d.energy.bucket_weight, d.decoder_outs[0].view());
  }
  for (std::size_t i = 0; i < decoder_blocks; ++i)
    d.block_forward(layout.decoder[i], d.decoder_outs[i].view(), d.frames, d.decoder_acts[i],
                    d.decoder_outs[i + 1],
                    dropout_for(static_cast<int>(encoder_blocks + layout.duration.size() + i)));
  d.linear_forward(layout.decoder_output, d.decoder_outs.back().view(), d.predicted);

  // Losses (AcousticPass::forward).
  AcousticLosses losses;
  d.d_predicted.resize(mels, frames);
  losses.mel = settings_.l1_mel
                   ? cu::l1_loss(d.predicted.view(), d.target.view(), d.d_predicted.view())
                   : cu::mse_loss(d.predicted.view(), d.target.view(), d.d_predicted.view());
  d.prior_frames.resize(mels, frames);
  cu::embedding_lookup(state_means, d.frame_state, d.prior_frames.view());
  d.d_prior_frames.resize(mels, frames);
  losses.prior = 0.5 * cu::mse_loss(d.prior_frames.view(), d.target.view(), d.d_prior_frames.view(),
                                    0.5f * settings_.prior_weight);
  d.log_target.upload(log_duration_targets(durations_));
  d.d_log_durations.resize(1, tokens);
  losses.duration = cu::mse_loss(d.log_durations.view(), d.log_target.view(),
                                 d.d_log_durations.view(), settings_.duration_weight);
  losses.total = losses.mel + settings_.prior_weight * losses.prior +
                 settings_.duration_weight * losses.duration;
  if (layout.has_variance) {
    losses.pitch = host_masked_mse(d.pitch, pitch_target, variance_mask, settings_.pitch_weight,
                                   predicted_pitch_);
    losses.energy = host_masked_mse(d.energy, energy_target, variance_mask, settings_.energy_weight,
                                    predicted_energy_);
    losses.total += settings_.pitch_weight * losses.pitch + settings_.energy_weight * losses.energy;
  } else {
    predicted_pitch_.resize(0, 0);
    predicted_energy_.resize(0, 0);
  }
  have_forward_ = true;
  return losses;
}

void CudaAcousticPass::backward(kernels::ParameterSet& gradients) {
  if (!have_forward_) throw std::logic_error("CudaAcousticPass::backward before forward");
  const kernels::ParameterSet& params = weights_.parameters();
  if (gradients.size() != params.size())
    throw std::invalid_argument("CudaAcousticPass::backward: gradients do not match the weights");
  const AcousticLayout& layout = weights_.layout();
  const AcousticConfig& c = weights_.config();
  Device& d = *device_;
  const int channels = c.channels, tokens = d.embedded.cols(), frames = d.predicted.cols();
  d.gradients.resize(params.size());
  d.gradients.set_zero();

  // Decoder, back to the expanded encoder states.
  d.d_hidden.resize(d.decoder_outs.back().rows(), frames);
  d.d_hidden.set_zero();
  d.linear_backward(layout.decoder_output, d.decoder_outs.back().view(), d.d_predicted.view(),
                    d.d_hidden.view());
  for (std::size_t i = layout.decoder.size(); i-- > 0;) {
    d.d_in.resize(d.decoder_outs[i].rows(), frames);
    d.d_in.set_zero();
    d.block_backward(layout.decoder[i], d.frames, d.decoder_acts[i], d.d_hidden.view(),
                     d.d_in.view());
    std::swap(d.d_hidden, d.d_in);
  }
  if (layout.has_variance) {
    // The embeddings' tables get the gradient of decoder_outs[0]; the buckets are constants.
    cu::scatter_add(d.d_hidden.view(), d.pitch.to_buckets, d.g(layout.pitch.embedding));
    cu::scatter_add(d.d_hidden.view(), d.energy.to_buckets, d.g(layout.energy.embedding));
  }
  d.d_decoder_in.resize(channels + 2, frames);
  d.d_decoder_in.set_zero();
  d.linear_backward(layout.decoder_input, d.decoder_in.view(), d.d_hidden.view(),
                    d.d_decoder_in.view());
  d.d_encoded.resize(channels, tokens);
  d.d_encoded.set_zero();
  cu::scatter_add(d.d_decoder_in.view().top_rows(channels), d.to_tokens, d.d_encoded.view());

  // Prior means.
  const int mels = c.n_mels, states = c.alignment_states;
  d.d_means.resize(mels * states, tokens);
  d.d_means.set_zero();
  cu::scatter_add(d.d_prior_frames.view(), d.to_states,
                  DeviceView{d.d_means.view().data, mels, tokens * states, mels});
  d.d_embedded.resize(channels, tokens);
  d.d_embedded.set_zero();
  d.linear_backward(layout.prior, d.embedded.view(), d.d_means.view(), d.d_embedded.view());

  // Duration predictor; its first block's input gradient joins the decoder's in d_encoded.
  d.d_duration.resize(d.duration_outs.back().rows(), tokens);
  d.d_duration.set_zero();
  d.linear_backward(layout.duration_output, d.duration_outs.back().view(), d.d_log_durations.view(),
                    d.d_duration.view());
  for (std::size_t i = layout.duration.size(); i-- > 0;) {
    if (i == 0) {
      d.block_backward(layout.duration[0], d.tokens, d.duration_acts[0], d.d_duration.view(),
                       d.d_encoded.view());
    } else {
      d.d_in.resize(d.duration_outs[i - 1].rows(), tokens);
      d.d_in.set_zero();
      d.block_backward(layout.duration[i], d.tokens, d.duration_acts[i], d.d_duration.view(),
                       d.d_in.view());
      std::swap(d.d_duration, d.d_in);
    }
  }

  // Variance predictors; their input gradients join d_encoded too.
  if (layout.has_variance) {
    d.predictor_backward(layout.pitch, d.pitch, d.d_encoded.view());
    d.predictor_backward(layout.energy, d.energy, d.d_encoded.view());
  }

  // Encoder and embedding.
  for (std::size_t i = layout.encoder.size(); i-- > 0;) {
    d.d_in.resize(channels, tokens);
    d.d_in.set_zero();
    d.block_backward(layout.encoder[i], d.tokens, d.encoder_acts[i], d.d_encoded.view(),
                     d.d_in.view());
    std::swap(d.d_encoded, d.d_in);
  }
  cu::add(d.d_embedded.view(), d.d_encoded.view());
  cu::scatter_add(d.d_encoded.view(), d.to_embedding, d.g(layout.embedding));

  std::vector<float> host(params.size());
  d.gradients.download(host.data(), host.size());
  float* out = gradients.data();
  for (std::size_t i = 0; i < host.size(); ++i) out[i] += host[i];
}

kernels::Matrix CudaAcousticPass::predicted_mel() const {
  kernels::Matrix host(device_->predicted.rows(), device_->predicted.cols());
  device_->predicted.download(host);
  return host;
}

kernels::Matrix CudaAcousticPass::log_durations() const {
  kernels::Matrix host(device_->log_durations.rows(), device_->log_durations.cols());
  device_->log_durations.download(host);
  return host;
}

}  // namespace tts::frontend
