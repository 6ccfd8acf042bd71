// The only file that includes mpi.h: MPI_COMM_WORLD behind the Communicator interface.
#include "mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

namespace tts::train {

namespace {

// Throws naming the call and MPI's own words for the error.
void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string("MPI: ") + call + " failed: " + std::string(text, length));
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) throw std::runtime_error("MPI: already finalised in this process");
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      // Funnelled: only the thread that made the communicator calls MPI (the batch loaders never
      // do).
      int provided = 0;
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
      owns_ = true;
    }
    // Failures become exceptions with MPI's message, not MPI's own abort.
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  }
  ~MpiCommunicator() override {
    if (owns_) MPI_Finalize();
  }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sum(float* data, std::size_t count) override { reduce(data, count, MPI_FLOAT); }
  void sum(double* data, std::size_t count) override { reduce(data, count, MPI_DOUBLE); }

  void broadcast(std::string& text) override {
    unsigned long long bytes = text.size();
    check(MPI_Bcast(&bytes, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
    text.resize(bytes);
    for (std::size_t at = 0; at < bytes; at += INT_MAX) {
      const int n = static_cast<int>(std::min<std::size_t>(INT_MAX, bytes - at));
      check(MPI_Bcast(text.data() + at, n, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
    }
  }

  void abort_all(int code) noexcept override { MPI_Abort(MPI_COMM_WORLD, code); }

  std::string describe() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string library(version, static_cast<std::size_t>(length));
    library = library.substr(0, library.find_first_of(",\n"));
    return "rank " + std::to_string(rank_) + " of " + std::to_string(size_) + " (" + library + ")";
  }

 private:
  template <typename T>
  void reduce(T* data, std::size_t count, MPI_Datatype type) {
    // MPI counts are ints: a larger buffer goes in pieces.
    for (std::size_t at = 0; at < count; at += INT_MAX) {
      const int n = static_cast<int>(std::min<std::size_t>(INT_MAX, count - at));
      check(MPI_Allreduce(MPI_IN_PLACE, data + at, n, type, MPI_SUM, MPI_COMM_WORLD),
            "MPI_Allreduce");
    }
  }

  int rank_ = 0, size_ = 1;
  bool owns_ = false;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator() {
  return std::make_unique<MpiCommunicator>();
}

}  // namespace tts::train
