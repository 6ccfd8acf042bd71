#include <exception>
#include <iostream>
#include <string>

#include "train_commands.h"

namespace tts::cli {

void run_on_every_rank(train::Communicator& ranks, const std::function<void()>& train) {
  try {
    train();
  } catch (const std::exception& e) {
    if (ranks.size() == 1) throw;
    // One write: std::cerr is unbuffered, and Open MPI's own abort message, forwarded through the
    // same pipe, landed between the pieces of a line written piece by piece.
    const std::string line = "tts: rank " + std::to_string(ranks.rank()) + " of " +
                             std::to_string(ranks.size()) + ": " + e.what() +
                             "; ending every rank\n";
    std::cerr.write(line.data(), static_cast<std::streamsize>(line.size()));
    std::cerr.flush();
    ranks.abort_all(kExitFailure);
    throw;  // abort_all does not return on MPI; rethrown for any communicator that does
  }
}

}  // namespace tts::cli
