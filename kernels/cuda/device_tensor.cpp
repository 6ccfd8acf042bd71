#include "device_tensor.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cuda_check.h"

namespace tts::kernels::cuda {

template <typename T>
DeviceArray<T>::DeviceArray(DeviceArray&& other) noexcept
    : data_(other.data_), count_(other.count_), capacity_(other.capacity_) {
  other.data_ = nullptr;
  other.count_ = other.capacity_ = 0;
}

template <typename T>
DeviceArray<T>& DeviceArray<T>::operator=(DeviceArray&& other) noexcept {
  if (this != &other) {
    if (data_) cudaFree(data_);
    data_ = other.data_;
    count_ = other.count_;
    capacity_ = other.capacity_;
    other.data_ = nullptr;
    other.count_ = other.capacity_ = 0;
  }
  return *this;
}

template <typename T>
DeviceArray<T>::~DeviceArray() {
  if (data_) cudaFree(data_);  // never throws
}

template <typename T>
void DeviceArray<T>::resize(std::size_t count) {
  if (count > capacity_) {
    if (data_) TTS_CUDA_CHECK(cudaFree(data_));
    data_ = nullptr;
    capacity_ = 0;
    TTS_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    capacity_ = count;
  }
  count_ = count;
}

template <typename T>
void DeviceArray<T>::set_zero() {
  if (count_ > 0) TTS_CUDA_CHECK(cudaMemsetAsync(data_, 0, count_ * sizeof(T)));
}

template <typename T>
void DeviceArray<T>::upload(const T* host, std::size_t count) {
  if (count > count_)
    throw std::invalid_argument("DeviceArray::upload: " + std::to_string(count) +
                                " elements into " + std::to_string(count_));
  if (count > 0) TTS_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
}

template <typename T>
void DeviceArray<T>::download(T* host, std::size_t count) const {
  if (count > count_)
    throw std::invalid_argument("DeviceArray::download: " + std::to_string(count) +
                                " elements from " + std::to_string(count_));
  if (count > 0) TTS_CUDA_CHECK(cudaMemcpy(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost));
}

template class DeviceArray<float>;
template class DeviceArray<std::int32_t>;
template class DeviceArray<double>;

void DeviceMatrix::resize(int rows, int cols) {
  if (rows < 0 || cols < 0) throw std::invalid_argument("DeviceMatrix: negative shape");
  values_.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  rows_ = rows;
  cols_ = cols;
}

void DeviceMatrix::upload(ConstMatrixRef host) {
  resize(static_cast<int>(host.rows()), static_cast<int>(host.cols()));
  if (host.outerStride() == host.rows()) {
    values_.upload(host.data(), values_.size());
  } else {
    const Matrix contiguous = host;
    values_.upload(contiguous.data(), values_.size());
  }
}

void DeviceMatrix::download(MatrixRef host) const {
  if (host.rows() != rows_ || host.cols() != cols_)
    throw std::invalid_argument("DeviceMatrix::download: shapes do not agree");
  if (host.outerStride() == host.rows()) {
    values_.download(host.data(), values_.size());
  } else {
    Matrix contiguous(rows_, cols_);
    values_.download(contiguous.data(), values_.size());
    host = contiguous;
  }
}

}  // namespace tts::kernels::cuda
