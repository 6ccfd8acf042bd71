// Admission control for `tts serve`: at most `workers` syntheses run at once and at most `queue`
// more wait for one; anything beyond is refused at once (HTTP 503 with Retry-After, a Wyoming
// `error` event), so a burst never builds an unbounded backlog or a pile of timed-out clients.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

namespace tts::serve {

class Admission {
 public:
  Admission(int workers, int queue);  // throws std::invalid_argument unless workers ≥ 1, queue ≥ 0

  // A place in the queue, then (after wait_for_worker) a running synthesis. Releases whatever it
  // holds when destroyed.
  class Ticket {
   public:
    ~Ticket();
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    // Waits until a worker is free, at most until `deadline`, and returns whether it got one.
    // Returns false at once when the admission is closed.
    bool wait_for_worker(std::chrono::steady_clock::time_point deadline);

   private:
    friend class Admission;
    explicit Ticket(Admission& owner) : owner_(owner) {}
    Admission& owner_;
    bool running_ = false;
  };

  // nullptr when the workers are busy and the queue is full, or after close().
  std::unique_ptr<Ticket> try_enter();

  // Refuses every new ticket and wakes the waiting ones (which then fail); running ones finish.
  void close();
  // Waits until nothing runs or waits, at most until `deadline`; returns whether it got there.
  bool wait_idle(std::chrono::steady_clock::time_point deadline);

  bool closed() const;  // since close()
  int running() const;
  int waiting() const;
  int workers() const { return workers_; }
  int queue() const { return queue_; }

 private:
  const int workers_, queue_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  int running_ = 0, waiting_ = 0;
  bool closed_ = false;
};

}  // namespace tts::serve
