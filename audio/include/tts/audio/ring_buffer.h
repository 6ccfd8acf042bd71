// A lock-free single-producer/single-consumer ring buffer of float samples.
//
// The playback sink uses it to hand audio from the synthesis thread (producer) to the audio
// device callback (consumer). The callback runs on a real-time thread where taking a lock or
// allocating can cause audible glitches, so both ends only touch two atomic indices and the
// preallocated storage. Exactly one thread may push and exactly one thread may pop.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <stdexcept>

namespace tts::audio {

class SpscRingBuffer {
 public:
  // Capacity is rounded up to a power of two so that positions wrap with a mask. All memory is
  // allocated here; push and pop never allocate.
  explicit SpscRingBuffer(std::size_t min_capacity)
      : capacity_(round_up_to_power_of_two(min_capacity)),
        mask_(capacity_ - 1),
        storage_(new float[capacity_]()) {}

  SpscRingBuffer(const SpscRingBuffer&) = delete;
  SpscRingBuffer& operator=(const SpscRingBuffer&) = delete;

  std::size_t capacity() const { return capacity_; }

  // Producer side: copies up to `count` samples in, returns how many fit.
  std::size_t push(const float* samples, std::size_t count) {
    // head_ is ours, so a relaxed load is enough; acquire on tail_ makes sure the consumer has
    // finished reading the slots we are about to overwrite.
    const std::size_t head = head_.load(std::memory_order_relaxed);
    const std::size_t tail = tail_.load(std::memory_order_acquire);
    const std::size_t n = std::min(count, capacity_ - (head - tail));
    copy_in(head, samples, n);
    // Release publishes the copied samples before the consumer can see the new head.
    head_.store(head + n, std::memory_order_release);
    return n;
  }

  // Consumer side: copies up to `count` samples out, returns how many were available.
  std::size_t pop(float* out, std::size_t count) {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    const std::size_t head = head_.load(std::memory_order_acquire);
    const std::size_t n = std::min(count, head - tail);
    copy_out(tail, out, n);
    tail_.store(tail + n, std::memory_order_release);
    return n;
  }

  // Samples waiting to be popped. Exact from the consumer thread; from the producer it may be
  // stale (too high) but never too low, so it is safe for "is it drained yet?" polling.
  std::size_t size() const {
    const std::size_t tail = tail_.load(std::memory_order_acquire);
    const std::size_t head = head_.load(std::memory_order_acquire);
    return head - tail;
  }

  // Free slots, as seen by the producer.
  std::size_t space() const { return capacity_ - size(); }

 private:
  static std::size_t round_up_to_power_of_two(std::size_t n) {
    if (n == 0) throw std::invalid_argument("SpscRingBuffer: capacity must be positive");
    std::size_t p = 1;
    while (p < n) {
      if (p > (static_cast<std::size_t>(-1) >> 1))
        throw std::length_error("SpscRingBuffer: capacity too large");
      p <<= 1;
    }
    return p;
  }

  // Indices grow without bound and wrap naturally in unsigned arithmetic; `& mask_` turns them
  // into slots. This keeps "full" (head - tail == capacity) distinct from "empty" (== 0).
  void copy_in(std::size_t position, const float* src, std::size_t n) {
    const std::size_t start = position & mask_;
    const std::size_t first = std::min(n, capacity_ - start);
    std::copy(src, src + first, storage_.get() + start);
    std::copy(src + first, src + n, storage_.get());
  }

  void copy_out(std::size_t position, float* dst, std::size_t n) const {
    const std::size_t start = position & mask_;
    const std::size_t first = std::min(n, capacity_ - start);
    std::copy(storage_.get() + start, storage_.get() + start + first, dst);
    std::copy(storage_.get(), storage_.get() + (n - first), dst + first);
  }

  const std::size_t capacity_;
  const std::size_t mask_;
  const std::unique_ptr<float[]> storage_;
  // Each index on its own cache line so the two threads do not false-share.
  alignas(64) std::atomic<std::size_t> head_{0};  // next slot to write; written by the producer
  alignas(64) std::atomic<std::size_t> tail_{0};  // next slot to read; written by the consumer
};

}  // namespace tts::audio
