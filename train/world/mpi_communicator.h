// The MPI communicator (mpi_communicator.cpp, the one file that includes mpi.h), for world.cpp.
#pragma once

#include <memory>

#include "tts/train/communicator.h"

namespace tts::train {

// MPI_COMM_WORLD of a process started by mpirun: MPI_Init_thread here, MPI_Finalize when the
// object is destroyed. Throws std::runtime_error when MPI cannot start (or has already finished).
std::unique_ptr<Communicator> make_mpi_communicator();

}  // namespace tts::train
