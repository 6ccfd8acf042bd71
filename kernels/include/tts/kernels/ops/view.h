// The operand of every device op (tts/kernels/ops/backend.h): a column-major matrix in the memory
// of one backend, host or device. It is a plain pointer and three sizes, not a class of the
// backend's, so that the same pass code slices it (a layer's rows of stacked activations, one
// tensor of a flat parameter buffer) whatever the memory, and so that it crosses a virtual call, or
// later a dlopen'd backend library, without templates. A view does not own its data and carries no
// constness: an op's inputs are views too.
//
// Elements are fp32 unless `element` says otherwise: a pass whose GEMMs run in bf16 or fp16 keeps
// the activations that feed them in that precision (written so by the op that produces them), so
// that no GEMM rounds its operands itself. Only the ops that say so take 16-bit views; the others
// refuse them. `data` then points at 16-bit values; the slicing below counts in elements.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tts::kernels {

enum class Element : std::uint8_t {
  kFloat32,
  kBfloat16,  // raw bf16 bit patterns (round to nearest even)
  kFloat16,   // raw IEEE half bit patterns
};

inline std::size_t element_bytes(Element e) { return e == Element::kFloat32 ? 4 : 2; }

struct View {
  float* data = nullptr;
  int rows = 0, cols = 0, ld = 0;  // element (r, c) at r + c·ld elements from data, ld ≥ rows
  Element element = Element::kFloat32;

  // The view `offset` elements further on, same shape.
  View advanced(std::size_t offset) const {
    auto* bytes = reinterpret_cast<unsigned char*>(data) + offset * element_bytes(element);
    return {reinterpret_cast<float*>(bytes), rows, cols, ld, element};
  }
  View middle_rows(int first, int count) const {
    View v = advanced(static_cast<std::size_t>(first));
    v.rows = count;
    return v;
  }
  View top_rows(int count) const { return middle_rows(0, count); }
  View bottom_rows(int count) const { return middle_rows(rows - count, count); }
  View middle_cols(int first, int count) const {
    View v = advanced(static_cast<std::size_t>(first) * ld);
    v.cols = count;
    return v;
  }
  std::size_t size() const { return static_cast<std::size_t>(rows) * cols; }
  bool contiguous() const { return ld == rows; }
  bool is_float32() const { return element == Element::kFloat32; }
};

}  // namespace tts::kernels
