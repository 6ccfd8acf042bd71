#include "tts/vocoder/teacher_forced.h"

#include <stdexcept>
#include <string>

#include "tts/kernels/activations.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/sequence.h"
#include "tts/kernels/softmax.h"

namespace tts::vocoder {

using kernels::Matrix;
using kernels::Transpose;

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

TeacherForcedPass::TeacherForcedPass(const WaveNetWeights& weights) : weights_(weights) {}

double TeacherForcedPass::forward(const Batch& batch) {
  const WaveNetConfig& c = weights_.config();
  const WaveNetLayout& lay = weights_.layout();
  const kernels::ParameterSet& p = weights_.parameters();
  check_training_batch(batch, c);
  batch_ = &batch;
  const int R = c.residual_channels, L = c.layers;
  const Eigen::Index N = batch.columns();
  const std::vector<int> dilations = c.dilations();

  // Conditioning once per frame (not per sample), with the gate biases folded in.
  conditioning_.resize(L * 2 * R, batch.mel.cols());
  kernels::gemm(conditioning_, p.matrix(lay.conditioning), Transpose::kNo, batch.mel,
                Transpose::kNo);
  kernels::add_bias(conditioning_, p.vector(lay.dilated_bias));

  Matrix& h = h_;
  h.resize(R, N);
  kernels::embedding_lookup(p.matrix(lay.embedding), batch.inputs, h);
  dilated_in_.resize(L);
  tanh_.resize(L);
  sigmoid_.resize(L);
  gated_.resize(L * R, N);
  Matrix& z = z_;
  z.resize(2 * R, N);
  for (int i = 0; i < L; ++i) {
    Matrix& in = dilated_in_[i];
    in.resize(2 * R, N);
    kernels::causal_shift(h, dilations[i], batch.segments, in.topRows(R));
    in.bottomRows(R) = h;
    kernels::gemm(z, p.matrix(lay.dilated[i]), Transpose::kNo, in, Transpose::kNo);
    kernels::add_interpolated_columns(conditioning_.middleRows(i * 2 * R, 2 * R), batch.frame_index,
                                      batch.frame_weight, z);
    tanh_[i].resize(R, N);
    sigmoid_[i].resize(R, N);
    kernels::gate_forward(z, gated_.middleRows(i * R, R), tanh_[i], sigmoid_[i]);
    if (i + 1 < L) {
      kernels::gemm(h, p.matrix(lay.residual[i]), Transpose::kNo, gated_.middleRows(i * R, R),
                    Transpose::kNo, 1.0f, 1.0f);
      kernels::add_bias(h, p.vector(lay.residual_bias[i]));
    }
  }

  skip_relu_.resize(c.skip_channels, N);
  kernels::gemm(skip_relu_, p.matrix(lay.skip), Transpose::kNo, gated_, Transpose::kNo);
  kernels::add_bias(skip_relu_, p.vector(lay.skip_bias));
  kernels::relu_forward(skip_relu_, skip_relu_);
  hidden_relu_.resize(c.skip_channels, N);
  kernels::gemm(hidden_relu_, p.matrix(lay.head_hidden), Transpose::kNo, skip_relu_,
                Transpose::kNo);
  kernels::add_bias(hidden_relu_, p.vector(lay.head_hidden_bias));
  kernels::relu_forward(hidden_relu_, hidden_relu_);
  logits_.resize(c.classes, N);
  kernels::gemm(logits_, p.matrix(lay.head_output), Transpose::kNo, hidden_relu_, Transpose::kNo);
  kernels::add_bias(logits_, p.vector(lay.head_output_bias));
  d_logits_.resize(c.classes, N);
  return kernels::softmax_cross_entropy(logits_, batch.targets, d_logits_);
}

void TeacherForcedPass::backward(kernels::ParameterSet& g) {
  if (!batch_) throw std::logic_error("TeacherForcedPass::backward called before forward");
  const Batch& batch = *batch_;
  const WaveNetConfig& c = weights_.config();
  const WaveNetLayout& lay = weights_.layout();
  const kernels::ParameterSet& p = weights_.parameters();
  const int R = c.residual_channels, S = c.skip_channels, L = c.layers;
  const Eigen::Index N = batch.columns();
  const std::vector<int> dilations = c.dilations();

  // Head: logits ← relu(hidden) ← relu(skip).
  kernels::gemm(g.matrix(lay.head_output), d_logits_, Transpose::kNo, hidden_relu_, Transpose::kYes,
                1.0f, 1.0f);
  kernels::accumulate_row_sums(g.vector(lay.head_output_bias), d_logits_);
  Matrix& d_hidden = d_hidden_;
  d_hidden.resize(S, N);
  kernels::gemm(d_hidden, p.matrix(lay.head_output), Transpose::kYes, d_logits_, Transpose::kNo);
  kernels::relu_backward(d_hidden, hidden_relu_, d_hidden);
  kernels::gemm(g.matrix(lay.head_hidden), d_hidden, Transpose::kNo, skip_relu_, Transpose::kYes,
                1.0f, 1.0f);
  kernels::accumulate_row_sums(g.vector(lay.head_hidden_bias), d_hidden);
  Matrix& d_skip = d_skip_;
  d_skip.resize(S, N);
  kernels::gemm(d_skip, p.matrix(lay.head_hidden), Transpose::kYes, d_hidden, Transpose::kNo);
  kernels::relu_backward(d_skip, skip_relu_, d_skip);
  kernels::accumulate_row_sums(g.vector(lay.skip_bias), d_skip);
  kernels::gemm(g.matrix(lay.skip), d_skip, Transpose::kNo, gated_, Transpose::kYes, 1.0f, 1.0f);
  Matrix& d_gated = d_gated_;
  d_gated.resize(L * R, N);
  kernels::gemm(d_gated, p.matrix(lay.skip), Transpose::kYes, d_skip, Transpose::kNo);

  // The stack, top down. d_h is the gradient w.r.t. the residual stream entering layer i + 1.
  Matrix& d_h = d_h_;
  d_h.setZero(R, N);
  Matrix& dz = dz_;
  Matrix& d_in = d_in_;
  dz.resize(2 * R, N);
  d_in.resize(2 * R, N);
  Matrix& d_conditioning = d_conditioning_;
  d_conditioning.setZero(conditioning_.rows(), conditioning_.cols());
  for (int i = L - 1; i >= 0; --i) {
    auto d_gate = d_gated.middleRows(i * R, R);
    if (i + 1 < L) {
      kernels::gemm(d_gate, p.matrix(lay.residual[i]), Transpose::kYes, d_h, Transpose::kNo, 1.0f,
                    1.0f);
      kernels::gemm(g.matrix(lay.residual[i]), d_h, Transpose::kNo, gated_.middleRows(i * R, R),
                    Transpose::kYes, 1.0f, 1.0f);
      kernels::accumulate_row_sums(g.vector(lay.residual_bias[i]), d_h);
    }
    kernels::gate_backward(d_gate, tanh_[i], sigmoid_[i], dz);
    kernels::gemm(g.matrix(lay.dilated[i]), dz, Transpose::kNo, dilated_in_[i], Transpose::kYes,
                  1.0f, 1.0f);
    kernels::add_interpolated_columns_backward(dz, batch.frame_index, batch.frame_weight,
                                               d_conditioning.middleRows(i * 2 * R, 2 * R));
    kernels::gemm(d_in, p.matrix(lay.dilated[i]), Transpose::kYes, dz, Transpose::kNo);
    d_h += d_in.bottomRows(R);
    kernels::causal_shift_backward(d_in.topRows(R), dilations[i], batch.segments, d_h);
  }
  kernels::embedding_backward(d_h, batch.inputs, g.matrix(lay.embedding));
  kernels::gemm(g.matrix(lay.conditioning), d_conditioning, Transpose::kNo, batch.mel,
                Transpose::kYes, 1.0f, 1.0f);
  kernels::accumulate_row_sums(g.vector(lay.dilated_bias), d_conditioning);
}

}  // namespace tts::vocoder
