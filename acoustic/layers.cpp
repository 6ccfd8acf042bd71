#include "tts/acoustic/layers.h"

namespace tts::acoustic {

using kernels::Transpose;
using kernels::View;

namespace {
constexpr float kNormEpsilon = 1e-5f;
}

View LayerContext::entry(View flat, int index) const {
  const auto& e = layout->entries().at(index);
  return {flat.data + e.offset, static_cast<int>(e.rows), static_cast<int>(e.cols),
          static_cast<int>(e.rows)};
}

void reserve_blocks(std::vector<ConvBlockActivations>& blocks, std::size_t count,
                    kernels::Backend& backend) {
  while (blocks.size() < count) blocks.emplace_back(backend);
}

// The CPU kernels' conv1d_forward (unfold, GEMM, bias) and conv1d_backward spelled out as ops, in
// their order, so that the CPU backend repeats their bits.
void conv_block_forward(const LayerContext& c, const ConvBlockLayout& block, View x,
                        const kernels::Lengths& lengths, ConvBlockActivations& a,
                        kernels::Buffer& out, Dropout dropout) {
  kernels::Backend& B = c.backend;
  const View weight = c.p(block.conv);
  const int n = x.cols, width = weight.rows;
  a.unfolded.resize(block.kernel * x.rows, n);
  a.relu.resize(width, n);
  B.conv1d_unfold(x, block.kernel, lengths, a.unfolded.view());
  B.gemm(a.relu.view(), weight, Transpose::kNo, a.unfolded.view(), Transpose::kNo, 1.0f, 0.0f,
         c.precision);
  B.add_bias(a.relu.view(), c.p(block.conv_bias));
  B.relu_forward(a.relu.view(), a.relu.view());
  out.resize(width, n);
  if (dropout.rate > 0.0f) {
    a.keep.resize(width, n);
    B.dropout_mask(dropout.rate, dropout.seed, a.keep.view());
    B.multiply(a.relu.view(), a.keep.view(), out.view());
  } else {
    a.keep.resize(0, 0);
    B.copy(a.relu.view(), out.view());
  }
  if (block.residual) B.add(x, out.view());
  a.normalized.resize(width, n);
  a.inv_std.resize(n, 1);
  B.layer_norm_forward(out.view(), c.p(block.norm_scale), c.p(block.norm_bias), kNormEpsilon,
                       a.normalized.view(), a.inv_std.view(), out.view());
}

void conv_block_backward(const LayerContext& c, const ConvBlockLayout& block,
                         const kernels::Lengths& lengths, const ConvBlockActivations& a, View d_out,
                         View dx, ConvBlockScratch& scratch) {
  kernels::Backend& B = c.backend;
  const bool has_dx = dx.data != nullptr && dx.cols > 0;
  scratch.d_sum.resize(d_out.rows, d_out.cols);
  const View d_sum = scratch.d_sum.view();
  B.layer_norm_backward(d_out, a.normalized.view(), a.inv_std.view(), c.p(block.norm_scale), d_sum,
                        c.g(block.norm_scale), c.g(block.norm_bias));
  if (block.residual && has_dx) B.add(d_sum, dx);
  if (a.keep.rows() > 0) B.multiply(d_sum, a.keep.view(), d_sum);
  B.relu_backward(d_sum, a.relu.view(), d_sum);
  B.gemm(c.g(block.conv), d_sum, Transpose::kNo, a.unfolded.view(), Transpose::kYes, 1.0f, 1.0f,
         c.precision);
  B.accumulate_row_sums(c.g(block.conv_bias), d_sum);
  if (!has_dx) return;
  scratch.d_unfolded.resize(a.unfolded.rows(), a.unfolded.cols());
  B.gemm(scratch.d_unfolded.view(), c.p(block.conv), Transpose::kYes, d_sum, Transpose::kNo, 1.0f,
         0.0f, c.precision);
  B.conv1d_unfold_backward(scratch.d_unfolded.view(), block.kernel, lengths, dx);
}

void linear_forward(const LayerContext& c, const LinearLayout& layer, View x, kernels::Buffer& y) {
  const View weight = c.p(layer.weight);
  y.resize(weight.rows, x.cols);
  c.backend.gemm(y.view(), weight, Transpose::kNo, x, Transpose::kNo, 1.0f, 0.0f, c.precision);
  c.backend.add_bias(y.view(), c.p(layer.bias));
}

void linear_backward(const LayerContext& c, const LinearLayout& layer, View x, View dy, View dx) {
  kernels::Backend& B = c.backend;
  B.gemm(c.g(layer.weight), dy, Transpose::kNo, x, Transpose::kYes, 1.0f, 1.0f, c.precision);
  B.accumulate_row_sums(c.g(layer.bias), dy);
  if (dx.data != nullptr && dx.cols > 0)
    B.gemm(dx, c.p(layer.weight), Transpose::kYes, dy, Transpose::kNo, 1.0f, 1.0f, c.precision);
}

}  // namespace tts::acoustic
