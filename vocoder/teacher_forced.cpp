#include "tts/vocoder/teacher_forced.h"

#include <stdexcept>
#include <string>

#include "tts/kernels/ops/backends.h"

namespace tts::vocoder {

using kernels::Transpose;
using kernels::View;

void check_training_batch(const Batch& b, const WaveNetConfig& c) {
  const auto n = static_cast<std::size_t>(b.columns());
  auto fail = [](const std::string& why) { throw std::invalid_argument("vocoder batch: " + why); };
  if (b.segments <= 0 || b.length <= 0) fail("empty batch");
  if (b.inputs.size() != n || b.targets.size() != n || b.frame_index.size() != n ||
      b.frame_weight.size() != n)
    fail("inputs, targets and frame positions must have segments × length entries");
  if (b.mel.rows() != c.mel_channels)
    fail("mel has " + std::to_string(b.mel.rows()) + " channels, the model expects " +
         std::to_string(c.mel_channels));
  for (std::size_t t = 0; t < n; ++t) {
    if (b.inputs[t] < 0 || b.inputs[t] >= c.classes) fail("input class out of range");
    const int last = b.frame_index[t] + (b.frame_weight[t] != 0.0f ? 1 : 0);
    if (b.frame_index[t] < 0 || last >= b.mel.cols()) fail("frame position outside the mel");
  }
}

TeacherForcedPass::TeacherForcedPass(const WaveNetWeights& weights)
    : TeacherForcedPass(weights, kernels::cpu_backend()) {}

TeacherForcedPass::TeacherForcedPass(const WaveNetWeights& weights, kernels::Backend& backend,
                                     kernels::GemmPrecision precision)
    : weights_(weights), backend_(backend), precision_(precision) {}

std::string TeacherForcedPass::describe() const { return kernels::describe(backend_, precision_); }

View TeacherForcedPass::entry(const View& flat, int index) const {
  const auto& e = weights_.parameters().entries().at(index);
  return {flat.data + e.offset, static_cast<int>(e.rows), static_cast<int>(e.cols),
          static_cast<int>(e.rows)};
}

double TeacherForcedPass::forward(const Batch& batch) {
  const WaveNetConfig& c = weights_.config();
  const WaveNetLayout& lay = weights_.layout();
  const kernels::ParameterSet& params = weights_.parameters();
  check_training_batch(batch, c);
  kernels::Backend& B = backend_;
  const auto P = precision_;
  const int R = c.residual_channels, L = c.layers, N = batch.columns();
  const std::vector<int> dilations = c.dilations();
  auto p = [&](int index) { return entry(weights_view_, index); };

  weights_view_ =
      weights_on_device_.read_from_host(params.data(), static_cast<int>(params.size()), 1);
  mel_ = mel_on_device_.read_from_host(batch.mel.data(), static_cast<int>(batch.mel.rows()),
                                       static_cast<int>(batch.mel.cols()));
  inputs_->assign(batch.inputs, c.classes);
  targets_->assign(batch.targets, 0);
  frames_->assign(batch.frame_index, batch.frame_weight, static_cast<int>(batch.mel.cols()));
  segments_ = batch.segments;

  // Conditioning once per frame (not per sample), with the gate biases folded in.
  conditioning_.resize(L * 2 * R, mel_.cols);
  B.gemm(conditioning_.view(), p(lay.conditioning), Transpose::kNo, mel_, Transpose::kNo, 1.0f,
         0.0f, P);
  B.add_bias(conditioning_.view(), p(lay.dilated_bias));

  h_.resize(R, N);
  const View h = h_.view();
  B.embedding_lookup(p(lay.embedding), *inputs_, h);
  while (dilated_in_.size() < static_cast<std::size_t>(L)) {
    dilated_in_.emplace_back(B);
    tanh_.emplace_back(B);
    sigmoid_.emplace_back(B);
  }
  gated_.resize(L * R, N);
  z_.resize(2 * R, N);
  const View z = z_.view();
  for (int i = 0; i < L; ++i) {
    dilated_in_[i].resize(2 * R, N);
    const View in = dilated_in_[i].view();
    B.causal_shift(h, dilations[i], batch.segments, in.top_rows(R));
    B.copy(h, in.bottom_rows(R));
    B.gemm(z, p(lay.dilated[i]), Transpose::kNo, in, Transpose::kNo, 1.0f, 0.0f, P);
    B.add_interpolated_columns(conditioning_.view().middle_rows(i * 2 * R, 2 * R), *frames_, z);
    tanh_[i].resize(R, N);
    sigmoid_[i].resize(R, N);
    const View gated = gated_.view().middle_rows(i * R, R);
    B.gate_forward(z, gated, tanh_[i].view(), sigmoid_[i].view());
    if (i + 1 < L) {
      B.gemm(h, p(lay.residual[i]), Transpose::kNo, gated, Transpose::kNo, 1.0f, 1.0f, P);
      B.add_bias(h, p(lay.residual_bias[i]));
    }
  }

  skip_relu_.resize(c.skip_channels, N);
  hidden_relu_.resize(c.skip_channels, N);
  const View skip = skip_relu_.view(), hidden = hidden_relu_.view();
  B.gemm(skip, p(lay.skip), Transpose::kNo, gated_.view(), Transpose::kNo, 1.0f, 0.0f, P);
  B.add_bias(skip, p(lay.skip_bias));
  B.relu_forward(skip, skip);
  B.gemm(hidden, p(lay.head_hidden), Transpose::kNo, skip, Transpose::kNo, 1.0f, 0.0f, P);
  B.add_bias(hidden, p(lay.head_hidden_bias));
  B.relu_forward(hidden, hidden);
  logits_.resize(c.classes, N);
  B.gemm(logits_.view(), p(lay.head_output), Transpose::kNo, hidden, Transpose::kNo, 1.0f, 0.0f, P);
  B.add_bias(logits_.view(), p(lay.head_output_bias));
  d_logits_.resize(c.classes, N);
  have_forward_ = true;
  d_logits_scale_ = 1.0f;
  return B.softmax_cross_entropy(logits_.view(), *targets_, d_logits_.view());
}

void TeacherForcedPass::backward(kernels::ParameterSet& gradients, float loss_scale) {
  if (!have_forward_) throw std::logic_error("TeacherForcedPass::backward called before forward");
  const WaveNetConfig& c = weights_.config();
  const WaveNetLayout& lay = weights_.layout();
  const kernels::ParameterSet& params = weights_.parameters();
  if (gradients.size() != params.size())
    throw std::invalid_argument("TeacherForcedPass::backward: gradients have " +
                                std::to_string(gradients.size()) + " values, the model " +
                                std::to_string(params.size()));
  kernels::Backend& B = backend_;
  const auto P = precision_;
  const int R = c.residual_channels, S = c.skip_channels, L = c.layers, N = h_.cols();
  const std::vector<int> dilations = c.dilations();
  const View grads =
      gradients_on_device_.add_to_host(gradients.data(), static_cast<int>(gradients.size()), 1);
  auto p = [&](int index) { return entry(weights_view_, index); };
  auto g = [&](int index) { return entry(grads, index); };
  const View d_logits = d_logits_.view(), hidden = hidden_relu_.view(), skip = skip_relu_.view();
  if (loss_scale != d_logits_scale_) {  // never at scale 1: an unscaled pass is unchanged
    B.scale(d_logits, loss_scale / d_logits_scale_);
    d_logits_scale_ = loss_scale;
  }

  // Head: logits ← relu(hidden) ← relu(skip).
  B.gemm(g(lay.head_output), d_logits, Transpose::kNo, hidden, Transpose::kYes, 1.0f, 1.0f, P);
  B.accumulate_row_sums(g(lay.head_output_bias), d_logits);
  d_hidden_.resize(S, N);
  const View d_hidden = d_hidden_.view();
  B.gemm(d_hidden, p(lay.head_output), Transpose::kYes, d_logits, Transpose::kNo, 1.0f, 0.0f, P);
  B.relu_backward(d_hidden, hidden, d_hidden);
  B.gemm(g(lay.head_hidden), d_hidden, Transpose::kNo, skip, Transpose::kYes, 1.0f, 1.0f, P);
  B.accumulate_row_sums(g(lay.head_hidden_bias), d_hidden);
  d_skip_.resize(S, N);
  const View d_skip = d_skip_.view();
  B.gemm(d_skip, p(lay.head_hidden), Transpose::kYes, d_hidden, Transpose::kNo, 1.0f, 0.0f, P);
  B.relu_backward(d_skip, skip, d_skip);
  B.accumulate_row_sums(g(lay.skip_bias), d_skip);
  B.gemm(g(lay.skip), d_skip, Transpose::kNo, gated_.view(), Transpose::kYes, 1.0f, 1.0f, P);
  d_gated_.resize(L * R, N);
  B.gemm(d_gated_.view(), p(lay.skip), Transpose::kYes, d_skip, Transpose::kNo, 1.0f, 0.0f, P);

  // The stack, top down. d_h is the gradient w.r.t. the residual stream entering layer i + 1.
  d_h_.resize(R, N);
  const View d_h = d_h_.view();
  B.set_zero(d_h);
  dz_.resize(2 * R, N);
  d_in_.resize(2 * R, N);
  const View dz = dz_.view(), d_in = d_in_.view();
  d_conditioning_.resize(conditioning_.rows(), conditioning_.cols());
  B.set_zero(d_conditioning_.view());
  for (int i = L - 1; i >= 0; --i) {
    const View d_gate = d_gated_.view().middle_rows(i * R, R);
    if (i + 1 < L) {
      B.gemm(d_gate, p(lay.residual[i]), Transpose::kYes, d_h, Transpose::kNo, 1.0f, 1.0f, P);
      B.gemm(g(lay.residual[i]), d_h, Transpose::kNo, gated_.view().middle_rows(i * R, R),
             Transpose::kYes, 1.0f, 1.0f, P);
      B.accumulate_row_sums(g(lay.residual_bias[i]), d_h);
    }
    B.gate_backward(d_gate, tanh_[i].view(), sigmoid_[i].view(), dz);
    B.gemm(g(lay.dilated[i]), dz, Transpose::kNo, dilated_in_[i].view(), Transpose::kYes, 1.0f,
           1.0f, P);
    B.add_interpolated_columns_backward(dz, *frames_,
                                        d_conditioning_.view().middle_rows(i * 2 * R, 2 * R));
    B.gemm(d_in, p(lay.dilated[i]), Transpose::kYes, dz, Transpose::kNo, 1.0f, 0.0f, P);
    B.add(d_in.bottom_rows(R), d_h);
    B.causal_shift_backward(d_in.top_rows(R), dilations[i], segments_, d_h);
  }
  B.embedding_backward(d_h, *inputs_, g(lay.embedding));
  B.gemm(g(lay.conditioning), d_conditioning_.view(), Transpose::kNo, mel_, Transpose::kYes, 1.0f,
         1.0f, P);
  B.accumulate_row_sums(g(lay.dilated_bias), d_conditioning_.view());
  gradients_on_device_.finish_adding_to_host(gradients.data());
}

}  // namespace tts::vocoder
