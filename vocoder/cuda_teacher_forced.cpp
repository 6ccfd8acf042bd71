#include "tts/vocoder/cuda_teacher_forced.h"

#include <stdexcept>
#include <vector>

#include "tts/kernels/cuda/device_ops.h"
#include "tts/kernels/cuda/device_tensor.h"
#include "tts/vocoder/teacher_forced.h"

namespace tts::vocoder {

using kernels::Transpose;
using kernels::cuda::DeviceArray;
using kernels::cuda::DeviceMatrix;
using kernels::cuda::DeviceView;
namespace cu = kernels::cuda;

// The same buffers as TeacherForcedPass keeps on the host, here in device memory.
struct CudaTeacherForcedPass::Device {
  DeviceArray<float> weights, gradients;  // flat, in the ParameterSet's layout
  DeviceArray<std::int32_t> inputs, targets, frame_index;
  DeviceArray<float> frame_weight;
  kernels::cuda::ScatterPlan to_frames, to_embedding;  // the two scatters of the backward pass
  DeviceMatrix mel, conditioning;
  std::vector<DeviceMatrix> dilated_in, tanh, sigmoid;  // per layer
  DeviceMatrix h, z, gated, skip_relu, hidden_relu, logits, d_logits;
  DeviceMatrix d_hidden, d_skip, d_gated, d_h, dz, d_in, d_conditioning;

  // Entry `index` of a flat parameter buffer as a matrix view.
  static DeviceView entry(DeviceArray<float>& flat, const kernels::ParameterSet& layout,
                          int index) {
    const auto& e = layout.entries().at(index);
    return {flat.data() + e.offset, static_cast<int>(e.rows), static_cast<int>(e.cols),
            static_cast<int>(e.rows)};
  }
};

CudaTeacherForcedPass::CudaTeacherForcedPass(const WaveNetWeights& weights,
                                             kernels::cuda::GemmPrecision precision)
    : weights_(weights), precision_(precision), device_(std::make_unique<Device>()) {}

CudaTeacherForcedPass::~CudaTeacherForcedPass() = default;

double CudaTeacherForcedPass::forward(const Batch& batch) {
  const WaveNetConfig& c = weights_.config();
  const WaveNetLayout& lay = weights_.layout();
  const kernels::ParameterSet& params = weights_.parameters();
  check_training_batch(batch, c);
  Device& d = *device_;
  const int R = c.residual_channels, L = c.layers, S = c.skip_channels, N = batch.columns();
  const std::vector<int> dilations = c.dilations();
  auto p = [&](int index) { return Device::entry(d.weights, params, index); };

  d.weights.resize(params.size());
  d.weights.upload(params.data(), params.size());
  d.inputs.upload(batch.inputs);
  d.targets.upload(batch.targets);
  d.frame_index.upload(batch.frame_index);
  d.frame_weight.upload(batch.frame_weight);
  d.mel.upload(batch.mel);
  d.to_frames = kernels::cuda::ScatterPlan::for_interpolation(batch.frame_index, batch.frame_weight,
                                                              static_cast<int>(batch.mel.cols()));
  d.to_embedding = kernels::cuda::ScatterPlan::for_embedding(batch.inputs, c.classes);
  segments_ = batch.segments;

  // Conditioning once per frame (not per sample), with the gate biases folded in.
  d.conditioning.resize(L * 2 * R, d.mel.cols());
  cu::gemm(d.conditioning.view(), p(lay.conditioning), Transpose::kNo, d.mel.view(), Transpose::kNo,
           1.0f, 0.0f, precision_);
  cu::add_bias(d.conditioning.view(), p(lay.dilated_bias));

  d.h.resize(R, N);
  cu::embedding_lookup(p(lay.embedding), d.inputs, d.h.view());
  d.dilated_in.resize(L);
  d.tanh.resize(L);
  d.sigmoid.resize(L);
  d.gated.resize(L * R, N);
  d.z.resize(2 * R, N);
  for (int i = 0; i < L; ++i) {
    DeviceMatrix& in = d.dilated_in[i];
    in.resize(2 * R, N);
    cu::causal_shift(d.h.view(), dilations[i], batch.segments, in.view().top_rows(R));
    // The bottom half is h itself: a device-to-device copy through the shift kernel (shift 0).
    cu::causal_shift(d.h.view(), 0, batch.segments, in.view().bottom_rows(R));
    cu::gemm(d.z.view(), p(lay.dilated[i]), Transpose::kNo, in.view(), Transpose::kNo, 1.0f, 0.0f,
             precision_);
    cu::add_interpolated_columns(d.conditioning.view().middle_rows(i * 2 * R, 2 * R), d.frame_index,
                                 d.frame_weight, d.z.view());
    d.tanh[i].resize(R, N);
    d.sigmoid[i].resize(R, N);
    const DeviceView gated = d.gated.view().middle_rows(i * R, R);
    cu::gate_forward(d.z.view(), gated, d.tanh[i].view(), d.sigmoid[i].view());
    if (i + 1 < L) {
      cu::gemm(d.h.view(), p(lay.residual[i]), Transpose::kNo, gated, Transpose::kNo, 1.0f, 1.0f,
               precision_);
      cu::add_bias(d.h.view(), p(lay.residual_bias[i]));
    }
  }

  d.skip_relu.resize(S, N);
  cu::gemm(d.skip_relu.view(), p(lay.skip), Transpose::kNo, d.gated.view(), Transpose::kNo, 1.0f,
           0.0f, precision_);
  cu::add_bias(d.skip_relu.view(), p(lay.skip_bias));
  cu::relu_forward(d.skip_relu.view(), d.skip_relu.view());
  d.hidden_relu.resize(S, N);
  cu::gemm(d.hidden_relu.view(), p(lay.head_hidden), Transpose::kNo, d.skip_relu.view(),
           Transpose::kNo, 1.0f, 0.0f, precision_);
  cu::add_bias(d.hidden_relu.view(), p(lay.head_hidden_bias));
  cu::relu_forward(d.hidden_relu.view(), d.hidden_relu.view());
  d.logits.resize(c.classes, N);
  cu::gemm(d.logits.view(), p(lay.head_output), Transpose::kNo, d.hidden_relu.view(),
           Transpose::kNo, 1.0f, 0.0f, precision_);
  cu::add_bias(d.logits.view(), p(lay.head_output_bias));
  d.d_logits.resize(c.classes, N);
  have_forward_ = true;
  return cu::softmax_cross_entropy(d.logits.view(), d.targets, d.d_logits.view());
}

void CudaTeacherForcedPass::backward(kernels::ParameterSet& gradients) {
  if (!have_forward_)
    throw std::logic_error("CudaTeacherForcedPass::backward called before forward");
  const WaveNetConfig& c = weights_.config();
  const WaveNetLayout& lay = weights_.layout();
  const kernels::ParameterSet& params = weights_.parameters();
  if (gradients.size() != params.size())
    throw std::invalid_argument("CudaTeacherForcedPass::backward: gradients have " +
                                std::to_string(gradients.size()) + " values, the model " +
                                std::to_string(params.size()));
  Device& d = *device_;
  const int R = c.residual_channels, S = c.skip_channels, L = c.layers, N = d.h.cols();
  const std::vector<int> dilations = c.dilations();
  auto p = [&](int index) { return Device::entry(d.weights, params, index); };
  auto g = [&](int index) { return Device::entry(d.gradients, params, index); };
  d.gradients.resize(params.size());
  d.gradients.set_zero();
  const auto P = precision_;

  // Head: logits ← relu(hidden) ← relu(skip).
  cu::gemm(g(lay.head_output), d.d_logits.view(), Transpose::kNo, d.hidden_relu.view(),
           Transpose::kYes, 1.0f, 1.0f, P);
  cu::accumulate_row_sums(g(lay.head_output_bias), d.d_logits.view());
  d.d_hidden.resize(S, N);
  cu::gemm(d.d_hidden.view(), p(lay.head_output), Transpose::kYes, d.d_logits.view(),
           Transpose::kNo, 1.0f, 0.0f, P);
  cu::relu_backward(d.d_hidden.view(), d.hidden_relu.view(), d.d_hidden.view());
  cu::gemm(g(lay.head_hidden), d.d_hidden.view(), Transpose::kNo, d.skip_relu.view(),
           Transpose::kYes, 1.0f, 1.0f, P);
  cu::accumulate_row_sums(g(lay.head_hidden_bias), d.d_hidden.view());
  d.d_skip.resize(S, N);
  cu::gemm(d.d_skip.view(), p(lay.head_hidden), Transpose::kYes, d.d_hidden.view(), Transpose::kNo,
           1.0f, 0.0f, P);
  cu::relu_backward(d.d_skip.view(), d.skip_relu.view(), d.d_skip.view());
  cu::accumulate_row_sums(g(lay.skip_bias), d.d_skip.view());
  cu::gemm(g(lay.skip), d.d_skip.view(), Transpose::kNo, d.gated.view(), Transpose::kYes, 1.0f,
           1.0f, P);
  d.d_gated.resize(L * R, N);
  cu::gemm(d.d_gated.view(), p(lay.skip), Transpose::kYes, d.d_skip.view(), Transpose::kNo, 1.0f,
           0.0f, P);

  // The stack, top down. d_h is the gradient w.r.t. the residual stream entering layer i + 1.
  d.d_h.resize(R, N);
  d.d_h.set_zero();
  d.dz.resize(2 * R, N);
  d.d_in.resize(2 * R, N);
  d.d_conditioning.resize(d.conditioning.rows(), d.conditioning.cols());
  d.d_conditioning.set_zero();
  for (int i = L - 1; i >= 0; --i) {
    const DeviceView d_gate = d.d_gated.view().middle_rows(i * R, R);
    const DeviceView gated = d.gated.view().middle_rows(i * R, R);
    if (i + 1 < L) {
      cu::gemm(d_gate, p(lay.residual[i]), Transpose::kYes, d.d_h.view(), Transpose::kNo, 1.0f,
               1.0f, P);
      cu::gemm(g(lay.residual[i]), d.d_h.view(), Transpose::kNo, gated, Transpose::kYes, 1.0f, 1.0f,
               P);
      cu::accumulate_row_sums(g(lay.residual_bias[i]), d.d_h.view());
    }
    cu::gate_backward(d_gate, d.tanh[i].view(), d.sigmoid[i].view(), d.dz.view());
    cu::gemm(g(lay.dilated[i]), d.dz.view(), Transpose::kNo, d.dilated_in[i].view(),
             Transpose::kYes, 1.0f, 1.0f, P);
    cu::scatter_add(d.dz.view(), d.to_frames,
                    d.d_conditioning.view().middle_rows(i * 2 * R, 2 * R));
    cu::gemm(d.d_in.view(), p(lay.dilated[i]), Transpose::kYes, d.dz.view(), Transpose::kNo, 1.0f,
             0.0f, P);
    // d_h += the bottom half of d_in (shift 0), then the top half shifted back by the dilation.
    cu::causal_shift_backward(d.d_in.view().bottom_rows(R), 0, segments_, d.d_h.view());
    cu::causal_shift_backward(d.d_in.view().top_rows(R), dilations[i], segments_, d.d_h.view());
  }
  cu::scatter_add(d.d_h.view(), d.to_embedding, g(lay.embedding));
  cu::gemm(g(lay.conditioning), d.d_conditioning.view(), Transpose::kNo, d.mel.view(),
           Transpose::kYes, 1.0f, 1.0f, P);
  cu::accumulate_row_sums(g(lay.dilated_bias), d.d_conditioning.view());

  std::vector<float> host(params.size());
  d.gradients.download(host.data(), host.size());
  float* out = gradients.data();
  for (std::size_t i = 0; i < host.size(); ++i) out[i] += host[i];
}

kernels::Matrix CudaTeacherForcedPass::logits() const {
  kernels::Matrix host(device_->logits.rows(), device_->logits.cols());
  device_->logits.download(host);
  return host;
}

}  // namespace tts::vocoder
