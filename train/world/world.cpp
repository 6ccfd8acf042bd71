#include "tts/train/world.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#ifdef TTS_HAVE_MPI
#include "mpi_communicator.h"
#endif

namespace tts::train {

namespace {

// The world size a launcher gave this process in its environment; 0 when none started it.
int launched_world_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
  return std::getenv("PMIX_RANK") ? 1 : 0;
}

}  // namespace

std::unique_ptr<Communicator> world_communicator() {
  const int size = launched_world_size();
#ifdef TTS_HAVE_MPI
  if (size > 0) return make_mpi_communicator();
#else
  if (size > 1)
    throw std::runtime_error(
        "this process is one of " + std::to_string(size) +
        " ranks that mpirun started, but this tts was built without MPI (install libopenmpi-dev "
        "and build again): each rank would train alone");
#endif
  return single_process_communicator();
}

}  // namespace tts::train
