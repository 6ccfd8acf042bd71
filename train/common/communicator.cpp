#include "tts/train/communicator.h"

#include <stdexcept>

namespace tts::train {

namespace {

class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void sum(float*, std::size_t) override {}
  void sum(double*, std::size_t) override {}
  void broadcast(std::string&) override {}
  void abort_all(int) noexcept override {}
  std::string describe() const override { return "1 process"; }
};

}  // namespace

std::unique_ptr<Communicator> single_process_communicator() {
  return std::make_unique<SingleProcess>();
}

Communicator& this_process_alone() {
  static SingleProcess alone;
  return alone;
}

void check_same_on_every_rank(Communicator& c, const std::string& what, const std::string& value) {
  if (c.size() == 1) return;
  std::string first = value;
  c.broadcast(first);
  double differ = first == value ? 0.0 : 1.0;
  c.sum(&differ, 1);
  if (differ == 0.0) return;
  if (first != value)
    throw std::runtime_error("the ranks disagree about " + what + ": rank " +
                             std::to_string(c.rank()) + " has " + value + ", rank 0 has " + first);
  throw std::runtime_error("the ranks disagree about " + what + ": " +
                           std::to_string(static_cast<int>(differ)) + " of " +
                           std::to_string(c.size()) + " ranks differ from rank 0's " + value);
}

}  // namespace tts::train
