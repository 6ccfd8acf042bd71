#include "tts/train/crop_batches.h"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "tts/kernels/mulaw.h"

namespace tts::train {

vocoder::Batch make_crop_batch(const std::vector<Utterance>& utterances, const CropOptions& o,
                               uint64_t seed, int64_t index) {
  if (utterances.empty()) throw std::invalid_argument("crop batches: no utterances");
  // A fresh generator per batch, seeded from (seed, index): no state to save or restore.
  std::seed_seq sequence{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                         static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32)};
  std::mt19937_64 rng(sequence);
  std::vector<double> lengths;
  for (const auto& u : utterances) lengths.push_back(static_cast<double>(u.classes.size()));
  std::discrete_distribution<std::size_t> pick(lengths.begin(), lengths.end());

  const int frames_per_crop = o.length / o.hop_length + 2;
  const int32_t silence = kernels::mulaw_encode(0.0f, o.classes);
  vocoder::Batch b;
  b.segments = o.segments;
  b.length = o.length;
  const auto mel_rows = utterances.front().mel.rows();
  b.mel.resize(mel_rows, static_cast<Eigen::Index>(o.segments) * frames_per_crop);
  const std::size_t n = static_cast<std::size_t>(o.segments) * o.length;
  b.inputs.reserve(n);
  b.targets.reserve(n);
  b.frame_index.reserve(n);
  b.frame_weight.reserve(n);

  for (int s = 0; s < o.segments; ++s) {
    const Utterance& u = utterances[pick(rng)];
    const int64_t total = static_cast<int64_t>(u.classes.size());
    const int64_t last_start = std::max<int64_t>(0, total - o.length);
    // Crops start on a hop boundary so their first sample sits exactly on a frame centre.
    const int64_t start =
        std::uniform_int_distribution<int64_t>(0, last_start / o.hop_length)(rng) * o.hop_length;
    const int64_t first_frame = start / o.hop_length;
    const bool predicted = o.predicted_share > 0.0 &&
                           std::bernoulli_distribution(std::min(1.0, o.predicted_share))(rng) &&
                           u.predicted_mel.cols() == u.mel.cols();
    const kernels::Matrix& mel = predicted ? u.predicted_mel : u.mel;
    for (int f = 0; f < frames_per_crop; ++f) {
      const Eigen::Index column = std::min<Eigen::Index>(first_frame + f, mel.cols() - 1);
      b.mel.col(static_cast<Eigen::Index>(s) * frames_per_crop + f) = mel.col(column);
    }
    for (int t = 0; t < o.length; ++t) {
      const int64_t at = start + t;
      b.targets.push_back(at < total ? u.classes[at] : silence);
      b.inputs.push_back(at == 0 ? silence : (at - 1 < total ? u.classes[at - 1] : silence));
      int32_t frame;
      float weight;
      vocoder::frame_position(t, o.hop_length, s * frames_per_crop, frame, weight);
      b.frame_index.push_back(frame);
      b.frame_weight.push_back(weight);
    }
  }
  return b;
}

BatchQueue::BatchQueue(const std::vector<Utterance>& utterances, const CropOptions& options,
                       uint64_t seed, int64_t first, int capacity)
    : utterances_(utterances),
      options_(options),
      seed_(seed),
      next_index_(first),
      capacity_(static_cast<std::size_t>(std::max(1, capacity))),
      thread_([this] { produce(); }) {}

BatchQueue::~BatchQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void BatchQueue::produce() {
  try {
    for (;;) {
      int64_t index;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || ready_.size() < capacity_; });
        if (stopping_) return;
        index = next_index_++;
      }
      vocoder::Batch batch = make_crop_batch(utterances_, options_, seed_, index);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ready_.push_back(std::move(batch));
      }
      changed_.notify_all();
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::current_exception();
    changed_.notify_all();
  }
}

vocoder::Batch BatchQueue::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return !ready_.empty() || error_; });
  if (ready_.empty()) std::rethrow_exception(error_);
  vocoder::Batch batch = std::move(ready_.front());
  ready_.pop_front();
  changed_.notify_all();
  return batch;
}

}  // namespace tts::train
