#include "tts/kernels/ops/buffer.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tts::kernels {

Buffer::Buffer(Buffer&& other) noexcept
    : backend_(other.backend_),
      data_(std::exchange(other.data_, nullptr)),
      capacity_(std::exchange(other.capacity_, 0)),
      rows_(std::exchange(other.rows_, 0)),
      cols_(std::exchange(other.cols_, 0)),
      element_(other.element_),
      sums_(std::move(other.sums_)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    if (data_) backend_->deallocate(data_);
    backend_ = other.backend_;
    data_ = std::exchange(other.data_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
    rows_ = std::exchange(other.rows_, 0);
    cols_ = std::exchange(other.cols_, 0);
    element_ = other.element_;
    sums_ = std::move(other.sums_);
  }
  return *this;
}

Buffer::~Buffer() {
  if (data_) backend_->deallocate(data_);
}

void Buffer::resize(int rows, int cols, Element element) {
  if (rows < 0 || cols < 0)
    throw std::invalid_argument("Buffer::resize: negative size " + std::to_string(rows) + " × " +
                                std::to_string(cols));
  // The backend allocates floats: 16-bit elements take half as many, rounded up.
  const std::size_t elements = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  const std::size_t count = (elements * element_bytes(element) + sizeof(float) - 1) / sizeof(float);
  if (count > capacity_) {
    if (data_) backend_->deallocate(std::exchange(data_, nullptr));
    capacity_ = 0;
    data_ = backend_->allocate(count);
    capacity_ = count;
  }
  rows_ = rows;
  cols_ = cols;
  element_ = element;
}

void Buffer::upload(ConstMatrixRef host) {
  resize(static_cast<int>(host.rows()), static_cast<int>(host.cols()));
  if (host.outerStride() == host.rows()) {
    backend_->upload(host.data(), view());
  } else {
    const Matrix contiguous = host;
    backend_->upload(contiguous.data(), view());
  }
}

Matrix Buffer::download() const {
  Matrix host(rows_, cols_);
  if (host.size() > 0) backend_->download(view(), host.data());
  return host;
}

View Buffer::read_from_host(const float* host, int rows, int cols) {
  // The ops take non-const views; on the host this one is only read.
  if (backend_->host_resident()) return {const_cast<float*>(host), rows, cols, rows};
  resize(rows, cols);
  if (view().size() > 0) backend_->upload(host, view());
  return view();
}

View Buffer::add_to_host(float* host, int rows, int cols) {
  if (backend_->host_resident()) return {host, rows, cols, rows};
  resize(rows, cols);
  backend_->set_zero(view());
  return view();
}

void Buffer::finish_adding_to_host(float* host) {
  if (backend_->host_resident()) return;
  sums_.resize(view().size());  // kept: a fresh array per step costs its page faults
  if (!sums_.empty()) backend_->download(view(), sums_.data());
  for (std::size_t k = 0; k < sums_.size(); ++k) host[k] += sums_[k];
}

}  // namespace tts::kernels
