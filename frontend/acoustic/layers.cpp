#include "tts/frontend/acoustic/layers.h"

#include "tts/kernels/activations.h"
#include "tts/kernels/conv1d.h"
#include "tts/kernels/dropout.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/kernels/normalization.h"

namespace tts::frontend {

namespace {
constexpr float kNormEpsilon = 1e-5f;
}

void conv_block_forward(const kernels::ParameterSet& p, const ConvBlockLayout& block,
                        kernels::ConstMatrixRef x, const std::vector<int>& lengths,
                        ConvBlockActivations& a, kernels::Matrix& out, Dropout dropout) {
  const auto weight = p.matrix(block.conv);
  const Eigen::Index n = x.cols(), width = weight.rows();
  a.unfolded.resize(block.kernel * x.rows(), n);
  a.relu.resize(width, n);
  kernels::conv1d_forward(x, weight, p.vector(block.conv_bias), block.kernel, lengths, a.unfolded,
                          a.relu);
  kernels::relu_forward(a.relu, a.relu);
  if (dropout.rate > 0.0f) {
    a.keep.resize(width, n);
    kernels::dropout_mask(dropout.rate, dropout.seed, a.keep);
    out = a.relu.cwiseProduct(a.keep);
  } else {
    a.keep.resize(0, 0);
    out = a.relu;
  }
  if (block.residual) out += x;
  a.normalized.resize(width, n);
  a.inv_std.resize(n);
  kernels::layer_norm_forward(out, p.vector(block.norm_scale), p.vector(block.norm_bias),
                              kNormEpsilon, a.normalized, a.inv_std, out);
}

void conv_block_backward(const kernels::ParameterSet& p, const ConvBlockLayout& block,
                         const std::vector<int>& lengths, const ConvBlockActivations& a,
                         kernels::ConstMatrixRef d_out, kernels::ParameterSet& grads,
                         kernels::MatrixRef dx) {
  kernels::Matrix d_sum(d_out.rows(), d_out.cols());
  kernels::layer_norm_backward(d_out, a.normalized, a.inv_std, p.vector(block.norm_scale), d_sum,
                               grads.vector(block.norm_scale), grads.vector(block.norm_bias));
  if (block.residual && dx.cols() > 0) dx += d_sum;
  if (a.keep.size() > 0) d_sum.array() *= a.keep.array();
  kernels::relu_backward(d_sum, a.relu, d_sum);
  kernels::Matrix scratch(a.unfolded.rows(), dx.cols() > 0 ? a.unfolded.cols() : 0);
  kernels::conv1d_backward(d_sum, a.unfolded, p.matrix(block.conv), block.kernel, lengths,
                           grads.matrix(block.conv), grads.vector(block.conv_bias), scratch, dx);
}

void linear_forward(const kernels::ParameterSet& p, const LinearLayout& layer,
                    kernels::ConstMatrixRef x, kernels::Matrix& y) {
  const auto weight = p.matrix(layer.weight);
  y.resize(weight.rows(), x.cols());
  kernels::gemm(y, weight, kernels::Transpose::kNo, x, kernels::Transpose::kNo);
  kernels::add_bias(y, p.vector(layer.bias));
}

void linear_backward(const kernels::ParameterSet& p, const LinearLayout& layer,
                     kernels::ConstMatrixRef x, kernels::ConstMatrixRef dy,
                     kernels::ParameterSet& grads, kernels::MatrixRef dx) {
  kernels::gemm(grads.matrix(layer.weight), dy, kernels::Transpose::kNo, x,
                kernels::Transpose::kYes, 1.0f, 1.0f);
  kernels::accumulate_row_sums(grads.vector(layer.bias), dy);
  if (dx.cols() > 0)
    kernels::gemm(dx, p.matrix(layer.weight), kernels::Transpose::kYes, dy, kernels::Transpose::kNo,
                  1.0f, 1.0f);
}

}  // namespace tts::frontend
