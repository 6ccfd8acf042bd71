// The communicator a training command runs under (part of tts_train): the ranks `mpirun -np N`
// started, or this process alone when it was not started by mpirun (world size 1, no MPI needed).
#pragma once

#include <memory>

#include "tts/train/communicator.h"

namespace tts::train {

// Started by mpirun (Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_RANK of other launchers)
// and built with MPI: initialises MPI, which the returned object finalises when destroyed (once
// per process). Otherwise this process alone. Throws std::runtime_error when mpirun started
// several ranks but this build has no MPI, or MPI fails to start.
std::unique_ptr<Communicator> world_communicator();

}  // namespace tts::train
