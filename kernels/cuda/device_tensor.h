// Device-resident tensors for work that stays on the GPU between kernels (the training step): an
// owning array of floats or int32s in device memory, and a view of a column-major float matrix in
// it. A view is what the device operations (kernels/cuda/device_ops.h) take, as Eigen's
// MatrixRef is what the CPU kernels take: rows × cols with a column stride (ld) of at least rows,
// so that middle_rows() of a taller matrix, or one tensor of a flat parameter buffer, is a view
// without a copy.
//
// Only available when the CUDA backend is built (TTS_HAVE_CUDA). Allocation failures and copy
// errors throw std::runtime_error naming the CUDA call; nothing here exits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tts/kernels/ops/view.h"
#include "tts/kernels/tensor.h"

namespace tts::kernels::cuda {

// The backends' common view (tts/kernels/ops/view.h): a device pointer here.
using DeviceView = kernels::View;

// An owning, uninitialised device array of T (float, std::int32_t or double). resize() keeps the
// allocation when it is large enough, so buffers reused from step to step are allocated once.
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t count) { resize(count); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& other) noexcept;
  DeviceArray& operator=(DeviceArray&& other) noexcept;
  ~DeviceArray();

  void resize(std::size_t count);
  void set_zero();  // asynchronous on the default stream
  // Synchronous copies of the first `count` elements (count ≤ size()).
  void upload(const T* host, std::size_t count);
  void download(T* host, std::size_t count) const;
  void upload(const std::vector<T>& host) {
    resize(host.size());
    upload(host.data(), host.size());
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0, capacity_ = 0;
};

// A contiguous rows × cols float matrix in device memory.
class DeviceMatrix {
 public:
  DeviceMatrix() = default;
  DeviceMatrix(int rows, int cols) { resize(rows, cols); }
  void resize(int rows, int cols);
  void set_zero() { values_.set_zero(); }
  void upload(ConstMatrixRef host);     // resizes to the host matrix's shape
  void download(MatrixRef host) const;  // host must have this shape
  DeviceView view() { return {values_.data(), rows_, cols_, rows_}; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

 private:
  DeviceArray<float> values_;
  int rows_ = 0, cols_ = 0;
};

}  // namespace tts::kernels::cuda
