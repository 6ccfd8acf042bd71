// Failures on demand, for the tests of data-parallel training (what happens to a job when one of
// its ranks throws, or dies, in the middle of a run) and of loss scaling (a gradient that
// overflows, as fp16's would, without a GPU).
#pragma once

#include <cstdint>

#include "tts/kernels/parameter_set.h"

namespace tts::train {

// With $TTS_TEST_RANK_FAILURE set to "RANK:STEP" (or "RANK:STEP:kill"), rank RANK, about to take
// optimiser step STEP, throws std::runtime_error saying so (or is killed by SIGKILL, as a crashed
// or out-of-memory process is). Unset: nothing. A malformed value throws std::invalid_argument
// naming the variable.
void inject_rank_failure(int rank, int64_t step);

// With $TTS_TEST_GRADIENT_OVERFLOW set to a comma-separated list of "STEP" or "RANK:STEP" (rank 0
// when none is named), the rank's gradients for optimiser step STEP get an inf in their first
// element, before they are summed across micro-batches and ranks. Unset: nothing. A malformed
// value throws std::invalid_argument naming the variable.
void inject_gradient_overflow(int rank, int64_t step, kernels::ParameterSet& gradients);

}  // namespace tts::train
