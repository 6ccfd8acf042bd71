#include "tts/train/batch_layout.h"

#include <limits>
#include <stdexcept>

namespace tts::train {

std::string BatchLayout::describe() const {
  return std::to_string(global()) + " (" + std::to_string(world) +
         (world == 1 ? " rank × " : " ranks × ") + std::to_string(accumulate) +
         (accumulate == 1 ? " micro-batch × " : " micro-batches × ") + std::to_string(micro) + ")";
}

void check_batch_layout(const BatchLayout& l) {
  auto positive = [](int value, const char* what) {
    if (value < 1)
      throw std::invalid_argument(std::string("batch layout: ") + what + " is " +
                                  std::to_string(value) + ", must be at least 1");
  };
  positive(l.micro, "the batch");
  positive(l.accumulate, "--accumulate");
  positive(l.world, "the world size");
  if (l.rank < 0 || l.rank >= l.world)
    throw std::invalid_argument("batch layout: rank " + std::to_string(l.rank) +
                                " is not in a world of " + std::to_string(l.world));
  const int64_t global = int64_t{l.world} * l.accumulate * l.micro;
  if (global > std::numeric_limits<int>::max())
    throw std::invalid_argument("batch layout: a global batch of " + std::to_string(global) +
                                " items is too large");
}

nlohmann::json batch_layout_json(const BatchLayout& l) {
  return {{"global_batch", l.global()},
          {"batch", l.micro},
          {"accumulate", l.accumulate},
          {"world_size", l.world}};
}

void check_resume_batch(const std::filesystem::path& out_dir, const nlohmann::json& checkpoint,
                        const BatchLayout& l) {
  if (!checkpoint.contains("global_batch")) return;
  const auto& g = checkpoint.at("global_batch");
  if (g.is_number_integer() && g.get<int64_t>() == l.global()) return;
  auto field = [&](const char* name) {
    return checkpoint.contains(name) ? checkpoint.at(name).dump() : std::string("?");
  };
  throw std::runtime_error((out_dir / "checkpoint.json").string() +
                           ": cannot resume: it was trained with a global batch of " + g.dump() +
                           " (" + field("world_size") + " × " + field("accumulate") + " × " +
                           field("batch") + "), this run's is " + l.describe() +
                           "; keep ranks × --accumulate × --batch at " + g.dump() +
                           " so that the run draws the batches an uninterrupted one would");
}

}  // namespace tts::train
