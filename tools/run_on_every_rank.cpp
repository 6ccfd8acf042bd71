#include <exception>
#include <iostream>

#include "commands.h"

namespace tts::cli {

void run_on_every_rank(train::Communicator& ranks, const std::function<void()>& train) {
  try {
    train();
  } catch (const std::exception& e) {
    if (ranks.size() == 1) throw;
    std::cerr << "tts: rank " << ranks.rank() << " of " << ranks.size() << ": " << e.what()
              << "; ending every rank" << std::endl;
    ranks.abort_all(kExitFailure);
    throw;  // abort_all does not return on MPI; rethrown for any communicator that does
  }
}

}  // namespace tts::cli
