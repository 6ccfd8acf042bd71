// One teacher-forcing batch: `segments` crops of `length` samples each, with their mel frames.
#pragma once

#include <cstdint>
#include <vector>

#include "tts/kernels/tensor.h"

namespace tts::vocoder {

struct Batch {
  int segments = 0;
  int length = 0;                    // samples per segment (T); columns are segment-major
  std::vector<int32_t> inputs;       // previous sample's class for each of the segments·T targets
  std::vector<int32_t> targets;      // class to predict
  kernels::Matrix mel;               // M × (all frames of all segments, side by side)
  std::vector<int32_t> frame_index;  // per target: mel column at or before its position
  std::vector<float> frame_weight;   // per target: weight of the next column (linear interp.)

  int columns() const { return segments * length; }
};

// Frame position of sample `t` of an utterance whose frame f is centred on sample f·hop: column
// floor(t / hop) of its frames, weight (t mod hop) / hop of the next one. `first_column` offsets
// it.
inline void frame_position(int64_t t, int hop, int32_t first_column, int32_t& index,
                           float& weight) {
  index = first_column + static_cast<int32_t>(t / hop);
  weight = static_cast<float>(t % hop) / static_cast<float>(hop);
}

}  // namespace tts::vocoder
