// The operand of every device op (tts/kernels/ops/backend.h): a column-major float matrix in the
// memory of one backend, host or device. It is a plain pointer and three sizes, not a class of the
// backend's, so that the same pass code slices it (a layer's rows of stacked activations, one
// tensor of a flat parameter buffer) whatever the memory, and so that it crosses a virtual call,
// or later a dlopen'd backend library, without templates. A view does not own its data and
// carries no constness: an op's inputs are views too.
#pragma once

#include <cstddef>

namespace tts::kernels {

struct View {
  float* data = nullptr;
  int rows = 0, cols = 0, ld = 0;  // element (r, c) at data[r + c·ld], ld ≥ rows

  View middle_rows(int first, int count) const { return {data + first, count, cols, ld}; }
  View top_rows(int count) const { return middle_rows(0, count); }
  View bottom_rows(int count) const { return middle_rows(rows - count, count); }
  View middle_cols(int first, int count) const {
    return {data + static_cast<std::size_t>(first) * ld, rows, count, ld};
  }
  std::size_t size() const { return static_cast<std::size_t>(rows) * cols; }
  bool contiguous() const { return ld == rows; }
};

}  // namespace tts::kernels
