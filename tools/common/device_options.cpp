#include "device_options.h"

#include <vector>

namespace tts::cli {

namespace {

template <typename T>
std::vector<std::string> names_of(const std::map<std::string, T>& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.push_back(entry.first);
  return names;
}

}  // namespace

CLI::Option* add_device_option(CLI::App& cmd, kernels::Device& device, const std::string& help) {
  return cmd
      .add_option_function<std::string>(
          "--device", [&device](const std::string& name) { device = kernels::parse_device(name); },
          help)
      ->check(CLI::IsMember(names_of(kernels::device_names())))
      ->default_str(kernels::to_string(device));
}

void add_device_choice_options(CLI::App& cmd, kernels::DeviceChoice& choice,
                               const std::string& device_help) {
  add_device_option(cmd, choice.device, device_help);
  cmd.add_option_function<std::string>(
         "--precision",
         [&choice](const std::string& name) { choice.precision = kernels::parse_precision(name); },
         "GEMM precision on --device cuda: fp32, bf16 or fp16 (fp32 accumulation and weights; "
         "fp16 scales the loss, --loss-scaling)")
      ->check(CLI::IsMember(names_of(kernels::precision_names())))
      ->default_str(kernels::to_string(choice.precision));
}

}  // namespace tts::cli
