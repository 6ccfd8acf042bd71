#include "worker_team.h"

#include <immintrin.h>

namespace tts::vocoder {

WorkerTeam::WorkerTeam(int threads) : size_(threads < 1 ? 1 : threads) {
  for (int i = 1; i < size_; ++i) workers_.emplace_back([this, i] { work(i); });
}

WorkerTeam::~WorkerTeam() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void WorkerTeam::work(int index) {
  long seen = 0;
  for (;;) {
    const std::function<void(int)>* job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || job_generation_ != seen; });
      if (stopping_) return;
      seen = job_generation_;
      job = job_;
    }
    try {
      (*job)(index);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++finished_;
    }
    done_.notify_all();
  }
}

void WorkerTeam::run(const std::function<void(int)>& job) {
  if (size_ == 1) {
    job(0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    finished_ = 0;
    error_ = nullptr;
    ++job_generation_;
  }
  wake_.notify_all();
  std::exception_ptr own_error;
  try {
    job(0);
  } catch (...) {
    own_error = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return finished_ == size_ - 1; });
  if (own_error) std::rethrow_exception(own_error);
  if (error_) std::rethrow_exception(error_);
}

void WorkerTeam::wait_until(const std::atomic<long>& value, long target) {
  // The partner is normally a microsecond or two away: spin, then give the core up.
  for (int spins = 0; value.load(std::memory_order_acquire) < target; ++spins) {
    if (spins < 4000)
      _mm_pause();
    else
      std::this_thread::yield();
  }
}

}  // namespace tts::vocoder
