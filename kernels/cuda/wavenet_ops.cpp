// Host side of the fused WaveNet passes (kernels/cuda/device_ops.h, kernels in
// wavenet_fused.cu): shape and format checks, then one launch on the default stream.
#include <stdexcept>
#include <string>

#include "device_ops.h"
#include "launchers.h"

namespace tts::kernels::cuda {

namespace {

void require(bool ok, const char* operation, const char* why) {
  if (!ok) throw std::invalid_argument(std::string("cuda::") + operation + ": " + why);
}

int segment_length(int cols, int segments, const char* operation) {
  require(segments > 0 && cols % segments == 0, operation,
          "columns do not split into equal segments");
  return cols / segments;
}

}  // namespace

void wavenet_layer_input(DeviceView h, DeviceView bias, int shift, int segments, DeviceView h_out,
                         DeviceView stacked) {
  const char* op = "wavenet_layer_input";
  require(h.is_float32() && h_out.is_float32() && bias.is_float32(), op,
          "h, h_out and the bias are fp32");
  require(h_out.rows == h.rows && h_out.cols == h.cols && stacked.rows == 2 * h.rows &&
              stacked.cols == h.cols,
          op, "h_out must be shaped like h, stacked 2R × its columns");
  require(!bias.data || (bias.rows == h.rows && bias.cols == 1), op, "the bias must be R × 1");
  const int length = segment_length(h.cols, segments, op);
  if (bias.data && h_out.data == h.data) {
    // In place with a bias, one kernel would race (a column's shifted read may see its neighbour's
    // biased value): add the bias first, then stack without one.
    add_bias(h, bias);
    bias = DeviceView{};
  }
  detail::launch_wavenet_layer_input(h.data, h.ld, bias.data, h.rows, h.cols, shift, length,
                                     h_out.data, h_out.ld, stacked.data, stacked.ld,
                                     stacked.element, nullptr);
}

void wavenet_layer_input_backward(DeviceView d_in, int shift, int segments, DeviceView d_h,
                                  DeviceView rounded) {
  const char* op = "wavenet_layer_input_backward";
  require(d_h.is_float32(), op, "d_h is fp32");
  require(d_in.rows == 2 * d_h.rows && d_in.cols == d_h.cols, op,
          "d_in must be 2R × d_h's columns");
  // The kernel reads d_in and writes the rounded copy in one format, d_in's: an fp32 d_in (an fp32
  // pass) has no rounded copy, a 16-bit one may have one in its own format.
  require(!rounded.data || (rounded.rows == d_h.rows && rounded.cols == d_h.cols &&
                            !d_in.is_float32() && rounded.element == d_in.element),
          op, "the rounded copy must be shaped like d_h, in the format of a 16-bit d_in");
  const int length = segment_length(d_h.cols, segments, op);
  detail::launch_wavenet_layer_input_backward(d_in.data, d_in.ld, d_h.rows, d_h.cols, shift, length,
                                              d_h.data, d_h.ld, rounded.data, rounded.ld,
                                              d_in.element, nullptr);
}

void conditioned_gate_forward(DeviceView z, DeviceView frames,
                              const DeviceArray<std::int32_t>& index,
                              const DeviceArray<float>& weight, DeviceView gated,
                              DeviceView tanh_out, DeviceView sigmoid_out) {
  const char* op = "conditioned_gate_forward";
  const int r = gated.rows;
  // One format for z, gated and the kept factors (the kernel's T); the frames are fp32.
  require(frames.is_float32() && gated.element == z.element && tanh_out.element == z.element &&
              sigmoid_out.element == z.element,
          op, "z, gated and the kept factors must share one format, the frames fp32");
  require(z.rows == 2 * r && z.cols == gated.cols && frames.rows == z.rows, op,
          "z and the frames must have 2R rows, z as many columns as gated");
  require(index.size() == static_cast<std::size_t>(z.cols) && weight.size() == index.size(), op,
          "one frame position per column");
  require(tanh_out.rows == r && tanh_out.cols == z.cols && tanh_out.contiguous() &&
              sigmoid_out.rows == r && sigmoid_out.cols == z.cols && sigmoid_out.contiguous(),
          op, "the kept factors must be contiguous R × columns");
  detail::launch_conditioned_gate(z.data, z.ld, frames.data, frames.ld, index.data(), weight.data(),
                                  r, z.cols, gated.data, gated.ld, z.element, tanh_out.data,
                                  sigmoid_out.data, nullptr);
}

void conditioned_gate_backward_sorted(DeviceView d_gated, DeviceView tanh_out,
                                      DeviceView sigmoid_out,
                                      const DeviceArray<std::int32_t>& first,
                                      const DeviceArray<float>& weight, DeviceView dz,
                                      DeviceView d_frames) {
  const char* op = "conditioned_gate_backward";
  const int r = d_gated.rows;
  require(d_gated.is_float32() && d_frames.is_float32(), op, "d_gated and d_frames are fp32");
  require(tanh_out.element == dz.element && sigmoid_out.element == dz.element, op,
          "the kept factors and dz must share one format");
  require(tanh_out.rows == r && tanh_out.cols == d_gated.cols && tanh_out.contiguous() &&
              sigmoid_out.rows == r && sigmoid_out.cols == d_gated.cols && sigmoid_out.contiguous(),
          op, "the kept factors must be contiguous R × columns");
  require(dz.rows == 2 * r && dz.cols == d_gated.cols, op, "dz must be 2R × columns");
  require(d_frames.rows == 2 * r && first.size() == static_cast<std::size_t>(d_frames.cols) + 1 &&
              weight.size() == static_cast<std::size_t>(d_gated.cols),
          op, "d_frames must have 2R rows and one column per frame");
  detail::launch_conditioned_gate_backward(
      d_gated.data, d_gated.ld, tanh_out.data, sigmoid_out.data, r, first.data(), weight.data(),
      d_frames.cols, dz.data, dz.ld, dz.element, d_frames.data, d_frames.ld, nullptr);
}

void bias_relu_forward(DeviceView x, DeviceView bias, DeviceView y) {
  const char* op = "bias_relu_forward";
  require(x.is_float32() && bias.is_float32(), op, "x and the bias are fp32");
  require(y.rows == x.rows && y.cols == x.cols, op, "y must be shaped like x");
  require(bias.rows == x.rows && bias.cols == 1, op, "the bias must be rows × 1");
  detail::launch_bias_relu(x.data, x.ld, bias.data, x.rows, x.cols, y.data, y.ld, y.element,
                           nullptr);
}

}  // namespace tts::kernels::cuda
