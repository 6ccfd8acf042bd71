#include "tts/kernels/activations.h"

#include <cassert>

#include "gate_kernel.h"

namespace tts::kernels {

// Training and sampling both go through detail::gated_tanh_sigmoid, whose result for an element
// does not depend on its neighbours, so the two modes agree bit for bit on the gate.
void gate_forward(ConstMatrixRef z, MatrixRef gated, MatrixRef tanh_out, MatrixRef sigmoid_out) {
  const Eigen::Index r = z.rows() / 2;
  assert(gated.rows() == r && gated.cols() == z.cols());
  for (Eigen::Index t = 0; t < z.cols(); ++t)
    detail::gated_tanh_sigmoid(z.col(t).data(), z.col(t).data() + r, gated.col(t).data(),
                               tanh_out.col(t).data(), sigmoid_out.col(t).data(), r);
}

void gate_forward_step(ConstVectorRef z_filter, ConstVectorRef z_gate, VectorRef gated) {
  assert(z_filter.size() == z_gate.size() && gated.size() == z_filter.size());
  detail::gated_tanh_sigmoid(z_filter.data(), z_gate.data(), gated.data(), nullptr, nullptr,
                             z_filter.size());
}

void gate_backward(ConstMatrixRef d_gated, ConstMatrixRef tanh_out, ConstMatrixRef sigmoid_out,
                   MatrixRef dz) {
  const Eigen::Index r = d_gated.rows();
  dz.topRows(r) = d_gated.array() * sigmoid_out.array() * (1.0f - tanh_out.array().square());
  dz.bottomRows(r) =
      d_gated.array() * tanh_out.array() * sigmoid_out.array() * (1.0f - sigmoid_out.array());
}

void relu_forward(ConstMatrixRef x, MatrixRef y) { y = x.cwiseMax(0.0f); }

void relu_backward(ConstMatrixRef dy, ConstMatrixRef y, MatrixRef dx) {
  dx = (y.array() > 0.0f).select(dy, 0.0f);
}

}  // namespace tts::kernels
