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

void WorkerTeam::barrier() {
  if (size_ == 1) return;
  const long generation = barrier_generation_.load(std::memory_order_acquire);
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) == size_ - 1) {
    arrived_.store(0, std::memory_order_relaxed);
    barrier_generation_.fetch_add(1, std::memory_order_release);
    return;
  }
  // Spin briefly (the partner is normally a few hundred nanoseconds away), then yield the core so
  // an oversubscribed machine still makes progress.
  for (int spins = 0; barrier_generation_.load(std::memory_order_acquire) == generation; ++spins) {
    if (spins < 4000) _mm_pause();
    else std::this_thread::yield();
  }
}

}  // namespace tts::vocoder
