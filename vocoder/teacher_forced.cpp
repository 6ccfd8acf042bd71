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
  View v = flat.advanced(e.offset);
  v.rows = v.ld = static_cast<int>(e.rows);
  v.cols = static_cast<int>(e.cols);
  return v;
}

// In a bf16 or fp16 pass every activation that feeds a GEMM is written in that format by the op
// that makes it (`E` below), and the weights are rounded once per forward() into gemm_weights_, so
// no GEMM rounds an operand of its own; the dilated convolution's product, the gate's kept factors
// and the layer input's gradient are E as well, as a framework's mixed precision keeps them. What
// is summed from step to step or layer to layer (the residual stream h and its gradient, the head's
// products before their ReLU, the gradients of the weights) stays fp32. An fp32 pass has E = fp32
// and computes what the unfused ops did, bit for bit on the CPU.
double TeacherForcedPass::forward(const Batch& batch) {
  const WaveNetConfig& c = weights_.config();
  const WaveNetLayout& lay = weights_.layout();
  const kernels::ParameterSet& params = weights_.parameters();
  check_training_batch(batch, c);
  kernels::Backend& B = backend_;
  const auto P = precision_;
  const kernels::Element E = kernels::operand_element(P);
  const bool rounded = E != kernels::Element::kFloat32;
  const int R = c.residual_channels, S = c.skip_channels, L = c.layers, N = batch.columns();
  const std::vector<int> dilations = c.dilations();

  weights_view_ =
      weights_on_device_.read_from_host(params.data(), static_cast<int>(params.size()), 1);
  gemm_weights_view_ = weights_view_;
  if (rounded) {  // filled below, once the device's work starts
    gemm_weights_.resize(static_cast<int>(params.size()), 1, E);
    gemm_weights_view_ = gemm_weights_.view();
  }
  auto p = [&](int index) { return entry(weights_view_, index); };
  auto w = [&](int index) { return entry(gemm_weights_view_, index); };
  mel_ = mel_on_device_.read_from_host(batch.mel.data(), static_cast<int>(batch.mel.rows()),
                                       static_cast<int>(batch.mel.cols()));
  inputs_->assign(batch.inputs, c.classes);
  targets_->assign(batch.targets, 0);
  frames_->assign(batch.frame_index, batch.frame_weight, static_cast<int>(batch.mel.cols()));
  segments_ = batch.segments;

  // The device's work starts here: what came before (uploads, the batch's index data) and the
  // loss's download below keep it waiting (Backend::begin_busy, the trainer's idle fraction).
  B.begin_busy();
  if (rounded) B.copy(weights_view_, gemm_weights_.view());
  // Conditioning once per frame (not per sample), with the gate biases folded in.
  conditioning_.resize(L * 2 * R, mel_.cols);
  B.gemm(conditioning_.view(), w(lay.conditioning), Transpose::kNo, mel_, Transpose::kNo, 1.0f,
         0.0f, P);
  B.add_bias(conditioning_.view(), p(lay.dilated_bias));

  // The residual stream. On the host it is updated in place; on a device each layer's input op
  // writes h + the previous layer's residual bias into the other of two buffers, which one kernel
  // cannot do in place (a column's shifted read would race with its neighbour's write).
  h_.resize(R, N);
  if (!B.host_resident()) h_other_.resize(R, N);
  View h = h_.view();
  B.embedding_lookup(p(lay.embedding), *inputs_, h);
  while (dilated_in_.size() < static_cast<std::size_t>(L)) {
    dilated_in_.emplace_back(B);
    tanh_.emplace_back(B);
    sigmoid_.emplace_back(B);
  }
  gated_.resize(L * R, N, E);
  z_.resize(2 * R, N, E);
  const View z = z_.view();
  for (int i = 0; i < L; ++i) {
    dilated_in_[i].resize(2 * R, N, E);
    const View in = dilated_in_[i].view();
    View h_next = h;
    if (i > 0 && !B.host_resident())
      h_next = h.data == h_.view().data ? h_other_.view() : h_.view();
    B.wavenet_layer_input(h, i > 0 ? p(lay.residual_bias[i - 1]) : View{}, dilations[i],
                          batch.segments, h_next, in);
    h = h_next;
    B.gemm(z, w(lay.dilated[i]), Transpose::kNo, in, Transpose::kNo, 1.0f, 0.0f, P);
    tanh_[i].resize(R, N, E);
    sigmoid_[i].resize(R, N, E);
    const View gated = gated_.view().middle_rows(i * R, R);
    B.conditioned_gate_forward(z, conditioning_.view().middle_rows(i * 2 * R, 2 * R), *frames_,
                               gated, tanh_[i].view(), sigmoid_[i].view());
    if (i + 1 < L)
      B.gemm(h, w(lay.residual[i]), Transpose::kNo, gated, Transpose::kNo, 1.0f, 1.0f, P);
  }

  // The head. A rounded pass keeps each ReLU's output in E and its fp32 product in scratch.
  skip_relu_.resize(S, N, E);
  hidden_relu_.resize(S, N, E);
  if (rounded) product_.resize(S, N);
  const View skip = skip_relu_.view(), hidden = hidden_relu_.view();
  const View skip_product = rounded ? product_.view() : skip;
  const View hidden_product = rounded ? product_.view() : hidden;
  B.gemm(skip_product, w(lay.skip), Transpose::kNo, gated_.view(), Transpose::kNo, 1.0f, 0.0f, P);
  B.bias_relu_forward(skip_product, p(lay.skip_bias), skip);
  B.gemm(hidden_product, w(lay.head_hidden), Transpose::kNo, skip, Transpose::kNo, 1.0f, 0.0f, P);
  B.bias_relu_forward(hidden_product, p(lay.head_hidden_bias), hidden);
  logits_.resize(c.classes, N);
  B.gemm(logits_.view(), w(lay.head_output), Transpose::kNo, hidden, Transpose::kNo, 1.0f, 0.0f, P);
  B.add_bias(logits_.view(), p(lay.head_output_bias));
  d_logits_.resize(c.classes, N, E);
  have_forward_ = true;
  d_logits_scale_ = 1.0f;
  B.end_busy();
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
  const kernels::Element E = kernels::operand_element(P);
  const bool rounded = E != kernels::Element::kFloat32;
  const int R = c.residual_channels, S = c.skip_channels, L = c.layers, N = h_.cols();
  const std::vector<int> dilations = c.dilations();
  B.begin_busy();
  const View grads =
      gradients_on_device_.add_to_host(gradients.data(), static_cast<int>(gradients.size()), 1);
  auto w = [&](int index) { return entry(gemm_weights_view_, index); };
  auto g = [&](int index) { return entry(grads, index); };
  const View d_logits = d_logits_.view(), hidden = hidden_relu_.view(), skip = skip_relu_.view();
  if (loss_scale != d_logits_scale_) {  // never at scale 1: an unscaled pass is unchanged
    B.scale(d_logits, loss_scale / d_logits_scale_);
    d_logits_scale_ = loss_scale;
  }

  // Head: logits ← relu(hidden) ← relu(skip). Each ReLU's adjoint is written in E for the GEMMs
  // that read it (in place when E is fp32).
  B.gemm(g(lay.head_output), d_logits, Transpose::kNo, hidden, Transpose::kYes, 1.0f, 1.0f, P);
  B.accumulate_row_sums(g(lay.head_output_bias), d_logits);
  d_hidden_.resize(S, N);
  d_skip_.resize(S, N);
  if (rounded) {
    d_hidden_rounded_.resize(S, N, E);
    d_skip_rounded_.resize(S, N, E);
  }
  const View d_hidden = d_hidden_.view(), d_skip = d_skip_.view();
  const View d_hidden_e = rounded ? d_hidden_rounded_.view() : d_hidden;
  const View d_skip_e = rounded ? d_skip_rounded_.view() : d_skip;
  B.gemm(d_hidden, w(lay.head_output), Transpose::kYes, d_logits, Transpose::kNo, 1.0f, 0.0f, P);
  B.relu_backward(d_hidden, hidden, d_hidden_e);
  B.gemm(g(lay.head_hidden), d_hidden_e, Transpose::kNo, skip, Transpose::kYes, 1.0f, 1.0f, P);
  B.accumulate_row_sums(g(lay.head_hidden_bias), d_hidden_e);
  B.gemm(d_skip, w(lay.head_hidden), Transpose::kYes, d_hidden_e, Transpose::kNo, 1.0f, 0.0f, P);
  B.relu_backward(d_skip, skip, d_skip_e);
  B.accumulate_row_sums(g(lay.skip_bias), d_skip_e);
  B.gemm(g(lay.skip), d_skip_e, Transpose::kNo, gated_.view(), Transpose::kYes, 1.0f, 1.0f, P);
  d_gated_.resize(L * R, N);
  B.gemm(d_gated_.view(), w(lay.skip), Transpose::kYes, d_skip_e, Transpose::kNo, 1.0f, 0.0f, P);

  // The stack, top down. d_h is the gradient w.r.t. the residual stream entering layer i + 1
  // (fp32, summed layer after layer), d_h_e its copy in E for the GEMMs.
  d_h_.resize(R, N);
  const View d_h = d_h_.view();
  B.set_zero(d_h);
  if (rounded) d_h_rounded_.resize(R, N, E);
  const View d_h_e = rounded ? d_h_rounded_.view() : d_h;
  dz_.resize(2 * R, N, E);
  d_in_.resize(2 * R, N, E);
  const View dz = dz_.view(), d_in = d_in_.view();
  d_conditioning_.resize(conditioning_.rows(), conditioning_.cols());
  B.set_zero(d_conditioning_.view());
  for (int i = L - 1; i >= 0; --i) {
    const View d_gate = d_gated_.view().middle_rows(i * R, R);
    if (i + 1 < L) {
      B.gemm(d_gate, w(lay.residual[i]), Transpose::kYes, d_h_e, Transpose::kNo, 1.0f, 1.0f, P);
      B.gemm(g(lay.residual[i]), d_h_e, Transpose::kNo, gated_.view().middle_rows(i * R, R),
             Transpose::kYes, 1.0f, 1.0f, P);
      B.accumulate_row_sums(g(lay.residual_bias[i]), d_h_e);
    }
    B.conditioned_gate_backward(d_gate, tanh_[i].view(), sigmoid_[i].view(), *frames_, dz,
                                d_conditioning_.view().middle_rows(i * 2 * R, 2 * R));
    B.gemm(g(lay.dilated[i]), dz, Transpose::kNo, dilated_in_[i].view(), Transpose::kYes, 1.0f,
           1.0f, P);
    B.gemm(d_in, w(lay.dilated[i]), Transpose::kYes, dz, Transpose::kNo, 1.0f, 0.0f, P);
    // Below layer 0 only the embedding reads d_h, in fp32.
    B.wavenet_layer_input_backward(d_in, dilations[i], segments_, d_h,
                                   rounded && i > 0 ? d_h_e : View{});
  }
  B.embedding_backward(d_h, *inputs_, g(lay.embedding));
  B.gemm(g(lay.conditioning), d_conditioning_.view(), Transpose::kNo, mel_, Transpose::kYes, 1.0f,
         1.0f, P);
  B.accumulate_row_sums(g(lay.dilated_bias), d_conditioning_.view());
  B.end_busy();
  gradients_on_device_.finish_adding_to_host(gradients.data());
}

double TeacherForcedPass::device_busy_seconds() { return backend_.busy_seconds(); }

}  // namespace tts::vocoder
