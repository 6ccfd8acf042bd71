// A failure on demand, for the tests of data-parallel training: what happens to a job when one of
// its ranks throws, or dies, in the middle of a run.
#pragma once

#include <cstdint>

namespace tts::train {

// With $TTS_TEST_RANK_FAILURE set to "RANK:STEP" (or "RANK:STEP:kill"), rank RANK, about to take
// optimiser step STEP, throws std::runtime_error saying so (or is killed by SIGKILL, as a crashed
// or out-of-memory process is). Unset: nothing. A malformed value throws std::invalid_argument
// naming the variable.
void inject_rank_failure(int rank, int64_t step);

}  // namespace tts::train
