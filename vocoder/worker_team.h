// Internal: a small team of threads that runs one job together. Inside a job the threads hand work
// to each other through counters they spin on (wait_until): the incremental sampler hands over
// about once per layer per sample, far too often for a condition variable.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tts::vocoder {

class WorkerTeam {
 public:
  // `threads` ≥ 1; the caller of run() is thread 0, so threads - 1 workers are started.
  explicit WorkerTeam(int threads);
  ~WorkerTeam();
  WorkerTeam(const WorkerTeam&) = delete;
  WorkerTeam& operator=(const WorkerTeam&) = delete;

  int size() const { return size_; }

  // Runs job(thread_index) on every thread of the team and returns when all have finished.
  // An exception thrown by a worker is rethrown here.
  void run(const std::function<void(int)>& job);

  // Spins (then yields, so an oversubscribed machine still progresses) until value >= target.
  static void wait_until(const std::atomic<long>& value, long target);

 private:
  void work(int index);

  int size_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  long job_generation_ = 0;
  int finished_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace tts::vocoder
