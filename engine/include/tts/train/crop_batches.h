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
vocoder::Batch make_crop_batch(const std::vector<Utterance>& utterances, const CropOptions& options,
                               uint64_t seed, int64_t index);

// Produces make_crop_batch(…, first), (…, first + 1), … on a background thread, `capacity` ahead.
class BatchQueue {
 public:
  BatchQueue(const std::vector<Utterance>& utterances, const CropOptions& options, uint64_t seed,
             int64_t first, int capacity = 4);
  ~BatchQueue();
  BatchQueue(const BatchQueue&) = delete;
  BatchQueue& operator=(const BatchQueue&) = delete;

  // The next batch in order; rethrows anything the producer thread threw.
  vocoder::Batch next();

 private:
  void produce();

  const std::vector<Utterance>& utterances_;
  CropOptions options_;
  uint64_t seed_;
  int64_t next_index_;
  std::size_t capacity_;
  std::deque<vocoder::Batch> ready_;
  std::exception_ptr error_;
  bool stopping_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread thread_;
};

}  // namespace tts::train
