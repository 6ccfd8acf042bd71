#include "loss_scaling_options.h"

#include <string>

namespace tts::cli {

void add_loss_scaling_options(CLI::App& cmd, train::LossScalingOptions& options) {
  cmd.add_option_function<std::string>(
         "--loss-scaling",
         [&options](const std::string& name) { options.mode = train::parse_loss_scaling(name); },
         "Dynamic loss scaling: dynamic or off (default: dynamic with --precision fp16, off "
         "otherwise; dynamic works with any precision)")
      ->check(CLI::IsMember({"dynamic", "off"}));
  cmd.add_option("--loss-scale-init", options.initial_scale,
                 "Initial loss scale, a power of two from 1 to 2^24")
      ->capture_default_str();
  cmd.add_option("--loss-scale-growth-steps", options.growth_steps,
                 "Good steps in a row after which the loss scale doubles")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

}  // namespace tts::cli
