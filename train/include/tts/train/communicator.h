// The processes that train one model together (data parallel): each runs the same command on its
// own share of every batch, and their gradients are summed before every optimiser step. The
// trainers see only this interface; world size 1 is this process alone and needs no MPI
// (tts/train/world.h makes the communicator a command runs under).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace tts::train {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;  // 0 .. size() - 1; rank 0 writes the files and the log
  virtual int size() const = 0;
  // Replaces `data` on every rank by its element-wise sum over the ranks. Every rank must call
  // the same reductions in the same order with the same counts.
  virtual void sum(float* data, std::size_t count) = 0;
  virtual void sum(double* data, std::size_t count) = 0;
  // Replaces `text` on every rank by rank 0's.
  virtual void broadcast(std::string& text) = 0;
  // Ends every rank's process now, with `code` as the job's exit status: what a rank that cannot
  // go on must do so that the others do not wait for it in a reduction forever. Alone, returns.
  virtual void abort_all(int code) noexcept = 0;
  // "1 process" or "rank 0 of 4 (Open MPI …)", for logs.
  virtual std::string describe() const = 0;
};

// This process alone: sums are the values themselves.
std::unique_ptr<Communicator> single_process_communicator();

// The communicator of a trainer whose options name none (nullptr): one process alone, shared.
Communicator& this_process_alone();

// Throws std::runtime_error on every rank unless every rank's `value` is rank 0's: "the ranks
// disagree about WHAT: rank R has V, rank 0 has V0" on the ranks that differ, and "… rank(s)
// differ from rank 0" on the others. For settings every rank must share (config, corpus, step).
void check_same_on_every_rank(Communicator& communicator, const std::string& what,
                              const std::string& value);

}  // namespace tts::train
