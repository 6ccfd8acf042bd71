#include "tts/train/fault_injection.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
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

}  // namespace tts::train
