// Random aligned crops of a corpus, as teacher-forcing batches. Batch k is a pure function of
// (seed, k), so a resumed run sees exactly the batches an uninterrupted run would have seen; a
// background thread prepares the next batches in order into a bounded queue.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "tts/train/audio_corpus.h"
#include "tts/vocoder/batch.h"

namespace tts::train {

struct CropOptions {
  int segments = 4;   // crops per batch
  int length = 8000;  // samples per crop
  int hop_length = 200;
  int classes = 256;
  // The chance that a crop is conditioned on its utterance's predicted_mel instead of the
  // recording's own frames, where the utterance has one. 0 draws nothing, so the batches are
  // exactly those of a run without predicted frames.
  double predicted_share = 0.0;
};

// Batch number `index` of the stream identified by `seed`: crops start at uniformly random samples
// of utterances chosen with probability proportional to their length. Short utterances are padded
// with silence (and their last mel frame repeated). With options.predicted_share > 0, each crop
// then draws whether it takes its frames from the utterance's predicted_mel.
vocoder::Batch make_crop_batch(const std::vector<AudioUtterance>& utterances,
                               const CropOptions& options, uint64_t seed, int64_t index);

// Crops [first, first + count) of that batch alone: the same crops, in the same order, as those
// columns of the whole batch (every crop's draws are made, only these are cut), so the slices of a
// batch of options.segments crops put together are the batch (gradient accumulation, data
// parallel: tts/train/batch_layout.h).
vocoder::Batch make_crop_batch_slice(const std::vector<AudioUtterance>& utterances,
                                     const CropOptions& options, uint64_t seed, int64_t index,
                                     int first, int count);

// Crops [first, first + count) of a batch.
struct CropSlice {
  int first = 0, count = 0;
};

// Produces, on a background thread `capacity` ahead, the slices of batches first, first + 1, …
// that `slices` lists (each as make_crop_batch_slice), slice by slice and batch by batch. Empty
// `slices`: the whole batch, make_crop_batch(…, first), (…, first + 1), ….
class CropBatchQueue {
 public:
  CropBatchQueue(const std::vector<AudioUtterance>& utterances, const CropOptions& options,
                 uint64_t seed, int64_t first, int capacity = 4,
                 std::vector<CropSlice> slices = {});
  ~CropBatchQueue();
  CropBatchQueue(const CropBatchQueue&) = delete;
  CropBatchQueue& operator=(const CropBatchQueue&) = delete;

  // The next batch in order; rethrows anything the producer thread threw.
  vocoder::Batch next();

 private:
  void produce();

  const std::vector<AudioUtterance>& utterances_;
  CropOptions options_;
  uint64_t seed_;
  std::vector<CropSlice> slices_;
  int64_t next_index_;  // counts slices: batch next_index_ / slices_.size()
  std::size_t capacity_;
  std::deque<vocoder::Batch> ready_;
  std::exception_ptr error_;
  bool stopping_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread thread_;
};

}  // namespace tts::train
