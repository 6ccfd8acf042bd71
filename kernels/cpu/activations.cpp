#include "tts/kernels/activations.h"

#include <cassert>

namespace tts::kernels {

// Eigen's float tanh and logistic are vectorised rational approximations; every path (training,
// sampling, tests) goes through these functions, so all of them see the same values.
void gate_forward(ConstMatrixRef z, MatrixRef gated, MatrixRef tanh_out, MatrixRef sigmoid_out) {
  const Eigen::Index r = z.rows() / 2;
  assert(gated.rows() == r && gated.cols() == z.cols());
  tanh_out = z.topRows(r).array().tanh();
  sigmoid_out = z.bottomRows(r).array().logistic();
  gated = tanh_out.array() * sigmoid_out.array();
}

void gate_forward_step(ConstVectorRef z, VectorRef gated) {
  const Eigen::Index r = z.size() / 2;
  gated = z.head(r).array().tanh() * z.tail(r).array().logistic();
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
