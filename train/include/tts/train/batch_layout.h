// How one optimiser step's batch is shared out between ranks (data parallel) and micro-batches
// (gradient accumulation), the same for both trainers.
//
// The step's batch is one batch of global() = world · accumulate · micro items (crops or
// utterances), drawn as a pure function of (seed, step) exactly as a single process with a batch
// of global() items draws it. Rank r runs `accumulate` micro-batches of `micro` items, one after
// the other; its micro-batch k is the items [first_item(k), first_item(k) + micro) of that batch,
// with first_item(k) = (r · accumulate + k) · micro: rank r takes the r-th share, and its k-th
// micro-batch is the k-th slice of that share. Each micro-batch's gradient is added into one
// buffer (the memory of one micro-batch), the buffers are summed over the ranks, and the sum is
// normalised as the mean over the whole batch is. So (world, accumulate, micro) with the same
// global() train the same batches: a run may resume under another world size or accumulation as
// long as global() stays the same.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace tts::train {

struct BatchLayout {
  int micro = 1;       // items per micro-batch (the trainers' --batch)
  int accumulate = 1;  // micro-batches per rank per optimiser step (--accumulate)
  int world = 1;       // ranks
  int rank = 0;
  int global() const { return world * accumulate * micro; }
  int micro_batches() const { return world * accumulate; }  // in the whole step
  int first_item(int k) const { return (rank * accumulate + k) * micro; }
  // "4 (2 ranks × 1 micro-batch × 2)", for logs and errors.
  std::string describe() const;
};

// Throws std::invalid_argument naming the value unless every count is at least 1, the rank lies
// in the world and global() fits an int.
void check_batch_layout(const BatchLayout& layout);

// The checkpoint's record of the batch: {"global_batch", "batch", "accumulate", "world_size"}.
nlohmann::json batch_layout_json(const BatchLayout& layout);

// A resume must keep the checkpoint's global batch, or its batches would not be the ones an
// uninterrupted run draws. Throws std::runtime_error "OUT/checkpoint.json: cannot resume: …"
// naming both layouts when it differs; one from before the record (no "global_batch") passes.
void check_resume_batch(const std::filesystem::path& out_dir, const nlohmann::json& checkpoint,
                        const BatchLayout& layout);

}  // namespace tts::train
