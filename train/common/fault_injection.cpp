#include "tts/train/fault_injection.h"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tts::train {

void inject_rank_failure(int rank, int64_t step) {
  const char* value = std::getenv("TTS_TEST_RANK_FAILURE");
  if (!value || !*value) return;
  const std::string text = value;
  int failing_rank = 0, at = 0;
  long long failing_step = 0;
  char mode[8] = "";
  const int fields =
      std::sscanf(text.c_str(), "%d:%lld%n:%7s", &failing_rank, &failing_step, &at, mode);
  const bool kill = fields >= 2 && std::string(mode) == "kill";
  if (fields < 2 || (text.size() != static_cast<std::size_t>(at) && !kill))
    throw std::invalid_argument("TTS_TEST_RANK_FAILURE=" + text +
                                ": expected RANK:STEP or RANK:STEP:kill");
  if (rank != failing_rank || step != failing_step) return;
  if (kill) std::raise(SIGKILL);
  throw std::runtime_error("rank " + std::to_string(rank) + " fails before step " +
                           std::to_string(step) + " as TTS_TEST_RANK_FAILURE asks");
}

void inject_gradient_overflow(int rank, int64_t step, kernels::ParameterSet& gradients) {
  const char* value = std::getenv("TTS_TEST_GRADIENT_OVERFLOW");
  if (!value || !*value || gradients.size() == 0) return;
  std::istringstream items(value);
  std::string item;
  while (std::getline(items, item, ',')) {
    int overflowing_rank = 0, at = 0;
    long long overflowing_step = 0;
    const bool ranked =
        std::sscanf(item.c_str(), "%d:%lld%n", &overflowing_rank, &overflowing_step, &at) == 2 &&
        item.size() == static_cast<std::size_t>(at);
    if (!ranked) {
      overflowing_rank = 0;
      if (std::sscanf(item.c_str(), "%lld%n", &overflowing_step, &at) != 1 ||
          item.size() != static_cast<std::size_t>(at))
        throw std::invalid_argument(std::string("TTS_TEST_GRADIENT_OVERFLOW=") + value +
                                    ": expected a comma-separated list of STEP or RANK:STEP");
    }
    if (rank == overflowing_rank && step == overflowing_step)
      gradients.data()[0] = std::numeric_limits<float>::infinity();
  }
}

}  // namespace tts::train
