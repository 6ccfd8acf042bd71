// The default fused WaveNet passes of the device-op interface (tts/kernels/ops/backend.h): the
// unfused ops in the order the pass called them before they were fused, so a backend that does not
// override them (the CPU) computes the same bits as that pass did.
#include <stdexcept>
#include <string>

#include "tts/kernels/ops/backend.h"

namespace tts::kernels {

void Backend::wavenet_layer_input(View h, View bias, int shift, int segments, View h_out,
                                  View stacked) {
  if (stacked.rows != 2 * h.rows)
    throw std::invalid_argument(std::string(name()) +
                                "::wavenet_layer_input: stacked must have twice h's rows");
  if (h_out.data != h.data) copy(h, h_out);
  if (bias.data) add_bias(h_out, bias);
  causal_shift(h_out, shift, segments, stacked.top_rows(h.rows));
  copy(h_out, stacked.bottom_rows(h.rows));
}

void Backend::wavenet_layer_input_backward(View d_in, int shift, int segments, View d_h,
                                           View rounded) {
  if (d_in.rows != 2 * d_h.rows)
    throw std::invalid_argument(std::string(name()) +
                                "::wavenet_layer_input_backward: d_in must have twice d_h's rows");
  add(d_in.bottom_rows(d_h.rows), d_h);
  causal_shift_backward(d_in.top_rows(d_h.rows), shift, segments, d_h);
  if (rounded.data) copy(d_h, rounded);
}

void Backend::conditioned_gate_forward(View z, View frames, const Interpolation& at, View gated,
                                       View tanh_out, View sigmoid_out) {
  add_interpolated_columns(frames, at, z);
  gate_forward(z, gated, tanh_out, sigmoid_out);
}

void Backend::conditioned_gate_backward(View d_gated, View tanh_out, View sigmoid_out,
                                        const Interpolation& at, View dz, View d_frames) {
  gate_backward(d_gated, tanh_out, sigmoid_out, dz);
  add_interpolated_columns_backward(dz, at, d_frames);
}

void Backend::bias_relu_forward(View x, View bias, View y) {
  add_bias(x, bias);
  relu_forward(x, y);
}

}  // namespace tts::kernels
