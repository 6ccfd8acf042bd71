// Internal: an owning, typed, uninitialised device allocation (RAII around cudaMalloc/cudaFree).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "cuda_check.h"

namespace tts::kernels::cuda::detail {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count > 0) TTS_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept : data_(other.data_), count_(other.count_) {
    other.data_ = nullptr;
    other.count_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = other.data_;
      count_ = other.count_;
      other.data_ = nullptr;
      other.count_ = 0;
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }

  void upload(const T* host, std::size_t count) {
    if (count > count_) throw std::invalid_argument("DeviceBuffer::upload: too many elements");
    if (count > 0)
      TTS_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  void download(T* host, std::size_t count) const {
    if (count > count_) throw std::invalid_argument("DeviceBuffer::download: too many elements");
    if (count > 0)
      TTS_CUDA_CHECK(cudaMemcpy(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost));
  }
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    download(host.data(), count_);
    return host;
  }

 private:
  void release() noexcept {
    if (data_) cudaFree(data_);  // never throws: a destructor may call it
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace tts::kernels::cuda::detail
