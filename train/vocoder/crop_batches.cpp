#include "tts/train/crop_batches.h"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "tts/kernels/mulaw.h"

namespace tts::train {

vocoder::Batch make_crop_batch(const std::vector<AudioUtterance>& utterances, const CropOptions& o,
                               uint64_t seed, int64_t index) {
  return make_crop_batch_slice(utterances, o, seed, index, 0, o.segments);
}

vocoder::Batch make_crop_batch_slice(const std::vector<AudioUtterance>& utterances,
                                     const CropOptions& o, uint64_t seed, int64_t index, int first,
                                     int count) {
  if (utterances.empty()) throw std::invalid_argument("crop batches: no utterances");
  if (first < 0 || count < 1 || first + count > o.segments)
    throw std::invalid_argument("crop batches: crops " + std::to_string(first) + ".." +
                                std::to_string(first + count - 1) + " are not in a batch of " +
                                std::to_string(o.segments));
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
  b.segments = count;
  b.length = o.length;
  const auto mel_rows = utterances.front().mel.rows();
  b.mel.resize(mel_rows, static_cast<Eigen::Index>(count) * frames_per_crop);
  const std::size_t n = static_cast<std::size_t>(count) * o.length;
  b.inputs.reserve(n);
  b.targets.reserve(n);
  b.frame_index.reserve(n);
  b.frame_weight.reserve(n);

  for (int s = 0; s < o.segments; ++s) {
    const AudioUtterance& u = utterances[pick(rng)];
    const int64_t total = static_cast<int64_t>(u.classes.size());
    const int64_t last_start = std::max<int64_t>(0, total - o.length);
    // Crops start on a hop boundary so their first sample sits exactly on a frame centre.
    const int64_t start =
        std::uniform_int_distribution<int64_t>(0, last_start / o.hop_length)(rng) * o.hop_length;
    const int64_t first_frame = start / o.hop_length;
    const bool predicted = o.predicted_share > 0.0 &&
                           std::bernoulli_distribution(std::min(1.0, o.predicted_share))(rng) &&
                           u.predicted_mel.cols() == u.mel.cols();
    // Every crop's draws are made above, so a slice's crops are those of the whole batch.
    if (s < first) continue;
    if (s >= first + count) break;
    const int slot = s - first;
    const kernels::Matrix& mel = predicted ? u.predicted_mel : u.mel;
    for (int f = 0; f < frames_per_crop; ++f) {
      const Eigen::Index column = std::min<Eigen::Index>(first_frame + f, mel.cols() - 1);
      b.mel.col(static_cast<Eigen::Index>(slot) * frames_per_crop + f) = mel.col(column);
    }
    for (int t = 0; t < o.length; ++t) {
      const int64_t at = start + t;
      b.targets.push_back(at < total ? u.classes[at] : silence);
      b.inputs.push_back(at == 0 ? silence : (at - 1 < total ? u.classes[at - 1] : silence));
      int32_t frame;
      float weight;
      vocoder::frame_position(t, o.hop_length, slot * frames_per_crop, frame, weight);
      b.frame_index.push_back(frame);
      b.frame_weight.push_back(weight);
    }
  }
  return b;
}

CropBatchQueue::CropBatchQueue(const std::vector<AudioUtterance>& utterances,
                               const CropOptions& options, uint64_t seed, int64_t first,
                               int capacity, std::vector<CropSlice> slices)
    : utterances_(utterances),
      options_(options),
      seed_(seed),
      slices_(slices.empty() ? std::vector<CropSlice>{{0, options.segments}} : std::move(slices)),
      next_index_(first * static_cast<int64_t>(slices_.size())),
      capacity_(static_cast<std::size_t>(std::max(1, capacity))),
      thread_([this] { produce(); }) {}

CropBatchQueue::~CropBatchQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void CropBatchQueue::produce() {
  try {
    for (;;) {
      int64_t index;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || ready_.size() < capacity_; });
        if (stopping_) return;
        index = next_index_++;
      }
      const int64_t per_batch = static_cast<int64_t>(slices_.size());
      const CropSlice& slice = slices_[static_cast<std::size_t>(index % per_batch)];
      vocoder::Batch batch = make_crop_batch_slice(utterances_, options_, seed_, index / per_batch,
                                                   slice.first, slice.count);
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

vocoder::Batch CropBatchQueue::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return !ready_.empty() || error_; });
  if (ready_.empty()) std::rethrow_exception(error_);
  vocoder::Batch batch = std::move(ready_.front());
  ready_.pop_front();
  changed_.notify_all();
  return batch;
}

}  // namespace tts::train
