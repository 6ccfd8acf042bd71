#include "tts/serve/admission.h"

#include <stdexcept>

namespace tts::serve {

Admission::Admission(int workers, int queue) : workers_(workers), queue_(queue) {
  if (workers < 1) throw std::invalid_argument("workers must be at least 1");
  if (queue < 0) throw std::invalid_argument("queue must not be negative");
}

std::unique_ptr<Admission::Ticket> Admission::try_enter() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_ || running_ + waiting_ >= workers_ + queue_) return nullptr;
  ++waiting_;
  return std::unique_ptr<Ticket>(new Ticket(*this));
}

bool Admission::Ticket::wait_for_worker(std::chrono::steady_clock::time_point deadline) {
  if (running_) return true;
  std::unique_lock<std::mutex> lock(owner_.mutex_);
  bool got = owner_.changed_.wait_until(
      lock, deadline, [&] { return owner_.closed_ || owner_.running_ < owner_.workers_; });
  if (!got || owner_.closed_) return false;
  --owner_.waiting_;
  ++owner_.running_;
  running_ = true;
  return true;
}

Admission::Ticket::~Ticket() {
  {
    std::lock_guard<std::mutex> lock(owner_.mutex_);
    if (running_)
      --owner_.running_;
    else
      --owner_.waiting_;
  }
  owner_.changed_.notify_all();
}

void Admission::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

bool Admission::wait_idle(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_until(lock, deadline, [&] { return running_ == 0 && waiting_ == 0; });
}

bool Admission::closed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return closed_;
}

int Admission::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_;
}

int Admission::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_;
}

}  // namespace tts::serve
