// Host side of the acoustic model's device operations (kernels/cuda/acoustic_ops.h): shape
// checks, then a launch on the default stream (acoustic_kernels.cu).
#include "acoustic_ops.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "acoustic_launchers.h"
#include "cuda_check.h"
#include "device_ops.h"
#include "launchers.h"

namespace tts::kernels::cuda {

namespace {

void require(bool ok, const char* operation, const char* why) {
  if (!ok) throw std::invalid_argument(std::string("cuda::") + operation + ": " + why);
}

bool same_shape(const DeviceView& a, const DeviceView& b) {
  return a.rows == b.rows && a.cols == b.cols;
}

double regression_loss(DeviceView prediction, DeviceView target, DeviceView d_prediction,
                       float scale, bool l1, const char* operation) {
  require(same_shape(prediction, target) && same_shape(prediction, d_prediction), operation,
          "shapes do not agree");
  require(prediction.size() > 0, operation, "no elements");
  const double n = static_cast<double>(prediction.size());
  // The CPU's factors: 2·scale/n for the squared error, scale/n for the absolute one.
  const float gradient_scale = static_cast<float>((l1 ? 1.0 : 2.0) * scale / n);
  thread_local DeviceArray<double> column_loss;
  column_loss.resize(prediction.cols);
  detail::launch_regression_loss(prediction.data, prediction.ld, target.data, target.ld,
                                 prediction.rows, prediction.cols, l1, gradient_scale,
                                 d_prediction.data, d_prediction.ld, column_loss.data(), nullptr);
  std::vector<double> host(prediction.cols);
  column_loss.download(host.data(), host.size());
  double total = 0.0;
  for (double value : host) total += value;
  return total / n;
}

}  // namespace

PackedColumns::PackedColumns(const std::vector<int>& lengths) {
  std::vector<std::int32_t> bounds;
  std::int32_t begin = 0;
  for (int length : lengths) {
    require(length >= 0, "PackedColumns", "a length is negative");
    for (int t = 0; t < length; ++t) {
      bounds.push_back(begin);
      bounds.push_back(begin + length);
    }
    begin += length;
  }
  columns_ = begin;
  bounds_.upload(bounds);
}

void conv1d_unfold(DeviceView x, int kernel_size, const PackedColumns& columns,
                   DeviceView unfolded) {
  require(kernel_size > 0 && kernel_size % 2 == 1, "conv1d_unfold", "the kernel size must be odd");
  require(x.cols == columns.columns(), "conv1d_unfold", "lengths must sum to the columns");
  require(unfolded.rows == kernel_size * x.rows && unfolded.cols == x.cols, "conv1d_unfold",
          "unfolded must be K·C × N");
  detail::launch_conv1d_unfold(x.data, x.ld, x.rows, x.cols, kernel_size, columns.bounds().data(),
                               unfolded.data, unfolded.ld, nullptr);
}

void conv1d_unfold_backward(DeviceView d_unfolded, int kernel_size, const PackedColumns& columns,
                            DeviceView dx) {
  require(kernel_size > 0 && kernel_size % 2 == 1, "conv1d_unfold_backward",
          "the kernel size must be odd");
  require(dx.cols == columns.columns(), "conv1d_unfold_backward",
          "lengths must sum to the columns");
  require(d_unfolded.rows == kernel_size * dx.rows && d_unfolded.cols == dx.cols,
          "conv1d_unfold_backward", "shapes do not agree");
  detail::launch_conv1d_unfold_backward(d_unfolded.data, d_unfolded.ld, dx.rows, dx.cols,
                                        kernel_size, columns.bounds().data(), dx.data, dx.ld,
                                        nullptr);
}

void layer_norm_forward(DeviceView x, DeviceView gamma, DeviceView beta, float epsilon,
                        DeviceView normalized, DeviceView inv_std, DeviceView y) {
  require(gamma.rows == x.rows && gamma.cols == 1 && beta.rows == x.rows && beta.cols == 1 &&
              same_shape(normalized, x) && same_shape(y, x) && inv_std.rows == 1 &&
              inv_std.cols == x.cols,
          "layer_norm_forward", "shapes do not agree");
  detail::launch_layer_norm_forward(x.data, x.ld, x.rows, x.cols, gamma.data, beta.data, epsilon,
                                    normalized.data, normalized.ld, inv_std.data, y.data, y.ld,
                                    nullptr);
}

void layer_norm_backward(DeviceView dy, DeviceView normalized, DeviceView inv_std, DeviceView gamma,
                         DeviceView dx, DeviceView d_gamma, DeviceView d_beta) {
  require(same_shape(normalized, dy) && same_shape(dx, dy) && inv_std.rows == 1 &&
              inv_std.cols == dy.cols && gamma.rows == dy.rows && gamma.cols == 1 &&
              d_gamma.rows == dy.rows && d_gamma.cols == 1 && d_beta.rows == dy.rows &&
              d_beta.cols == 1,
          "layer_norm_backward", "shapes do not agree");
  // d_gamma += Σ_t dy ⊙ x̂ and d_beta += Σ_t dy, through the deterministic row sums.
  thread_local DeviceMatrix product;
  product.resize(dy.rows, dy.cols);
  multiply(dy, normalized, product.view());
  accumulate_row_sums(d_gamma, product.view());
  accumulate_row_sums(d_beta, dy);
  detail::launch_layer_norm_backward(dy.data, dy.ld, normalized.data, normalized.ld, inv_std.data,
                                     gamma.data, dy.rows, dy.cols, dx.data, dx.ld, nullptr);
}

void dropout_mask(float rate, std::uint64_t seed, DeviceView keep) {
  require(rate >= 0.0f && rate < 1.0f, "dropout_mask", "the rate must lie in [0, 1)");
  detail::launch_dropout_mask(keep.rows, keep.cols, rate, seed, keep.data, keep.ld, nullptr);
}

void multiply(DeviceView a, DeviceView b, DeviceView out) {
  require(same_shape(a, b) && same_shape(a, out), "multiply", "shapes do not agree");
  detail::launch_multiply(a.data, a.ld, b.data, b.ld, a.rows, a.cols, out.data, out.ld, nullptr);
}

void add(DeviceView x, DeviceView y) {
  require(same_shape(x, y), "add", "shapes do not agree");
  detail::launch_add(x.data, x.ld, x.rows, x.cols, y.data, y.ld, nullptr);
}

void copy(DeviceView from, DeviceView to) {
  require(same_shape(from, to), "copy", "shapes do not agree");
  require(from.is_float32(), "copy", "the source is fp32");
  if (from.size() == 0) return;
  if (!to.is_float32()) {  // rounded to the 16-bit format
    detail::launch_convert(from.data, from.ld, from.rows, from.cols, to.data, to.ld, to.element,
                           nullptr);
    return;
  }
  TTS_CUDA_CHECK(cudaMemcpy2DAsync(to.data, sizeof(float) * to.ld, from.data,
                                   sizeof(float) * from.ld, sizeof(float) * from.rows, from.cols,
                                   cudaMemcpyDeviceToDevice, nullptr));
}

double mse_loss(DeviceView prediction, DeviceView target, DeviceView d_prediction, float scale) {
  return regression_loss(prediction, target, d_prediction, scale, false, "mse_loss");
}

double l1_loss(DeviceView prediction, DeviceView target, DeviceView d_prediction, float scale) {
  return regression_loss(prediction, target, d_prediction, scale, true, "l1_loss");
}

}  // namespace tts::kernels::cuda
