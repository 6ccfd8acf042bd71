// An owning matrix in one backend's memory (tts/kernels/ops/backend.h), allocated by that backend,
// and the two ways a pass meets host arrays: reading one (the weights, the batch's mel) and adding
// its results into one (the gradients). On a host-resident backend both use the host array in
// place, so the CPU pass copies nothing it did not copy before; on a device they go through this
// buffer's memory.
#pragma once

#include <cstddef>
#include <vector>

#include "tts/kernels/ops/backend.h"
#include "tts/kernels/tensor.h"

namespace tts::kernels {

class Buffer {
 public:
  explicit Buffer(Backend& backend) : backend_(&backend) {}
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  // rows × cols, contiguous, of `element`s (16-bit ones only on a backend whose GEMMs take them).
  // The allocation is kept when it is large enough, so buffers reused from step to step are
  // allocated (and their pages faulted in) once; the contents are then whatever they were, as with
  // Eigen's resize.
  void resize(int rows, int cols, Element element = Element::kFloat32);
  View view() const { return {data_, rows_, cols_, rows_, element_}; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  Backend& backend() const { return *backend_; }

  // Resizes to the host matrix and copies it in; the reverse, to a new host matrix.
  void upload(ConstMatrixRef host);
  Matrix download() const;

  // A view of the contiguous rows × cols host array for ops to read: the array itself on a
  // host-resident backend (it must then outlive the view's use), else a copy in this buffer.
  View read_from_host(const float* host, int rows, int cols);

  // A view, zeroed unless it is the host array itself, into which ops add; then
  // finish_adding_to_host() adds what they summed to `host` (nothing to do in place).
  View add_to_host(float* host, int rows, int cols);
  void finish_adding_to_host(float* host);

 private:
  Backend* backend_;
  float* data_ = nullptr;
  std::size_t capacity_ = 0;
  int rows_ = 0, cols_ = 0;
  Element element_ = Element::kFloat32;
  std::vector<float> sums_;  // finish_adding_to_host's download, kept between steps
};

}  // namespace tts::kernels
