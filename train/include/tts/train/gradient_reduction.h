// The end of one optimiser step's backward passes, shared by both trainers: every micro-batch's
// gradient has been added into one buffer on each rank (tts/train/batch_layout.h); these sums,
// and the step's loss values, are summed over the ranks and normalised to the whole batch's.
#pragma once

#include <cstddef>

#include "tts/kernels/parameter_set.h"
#include "tts/train/communicator.h"

namespace tts::train {

// Sums `gradients` and `values[0 .. count)` over the ranks (in place, the same on every rank),
// then divides both by `divisor` (the vocoder's micro-batch count: its pass gives each
// micro-batch's mean; 1 for passes whose micro-batches already give their share of the whole
// batch's mean). With one rank and a divisor of 1 nothing is touched.
void reduce_gradients(Communicator& communicator, kernels::ParameterSet& gradients, double* values,
                      std::size_t count, double divisor);

}  // namespace tts::train
