# Decides whether data-parallel training over MPI is built (train/world/mpi_communicator.cpp, the
# one file that includes mpi.h). AUTO builds it when an MPI C library is found (Debian:
# libopenmpi-dev); ON requires it; OFF never builds it. Without it `tts train` trains in one
# process, and refuses to run as one of several ranks that mpirun started.
set(TTS_MPI AUTO CACHE STRING "Data-parallel training over MPI: AUTO, ON or OFF")
set_property(CACHE TTS_MPI PROPERTY STRINGS AUTO ON OFF)
set(TTS_HAVE_MPI OFF)
if(NOT TTS_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS C QUIET)
  find_program(TTS_MPIEXEC NAMES mpirun mpiexec HINTS ${MPI_C_COMPILER_PATH})
  if(MPI_C_FOUND)
    set(TTS_HAVE_MPI ON)
  elseif(TTS_MPI STREQUAL "ON")
    message(FATAL_ERROR "TTS_MPI=ON but no MPI library was found (install libopenmpi-dev)")
  endif()
endif()
message(STATUS "tts: MPI data parallel ${TTS_HAVE_MPI}")
