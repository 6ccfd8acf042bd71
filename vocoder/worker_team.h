// Internal: a small team of threads that runs one job together and meets at spin barriers. The
// incremental sampler splits every matrix-vector product of a sample across the team, so the
// threads meet about twice per layer per sample; a condition variable would cost more than the work.
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

  // Called by every thread of the team inside a job: returns once all have arrived.
  void barrier();

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
  alignas(64) std::atomic<int> arrived_{0};
  alignas(64) std::atomic<long> barrier_generation_{0};
};

}  // namespace tts::vocoder
