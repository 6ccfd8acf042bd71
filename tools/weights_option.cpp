#include "weights_option.h"

#include <string>
#include <vector>

namespace tts::cli {

CLI::Option* add_weights_option(CLI::App& cmd, kernels::WeightPrecision& precision) {
  std::vector<std::string> names;
  for (const kernels::WeightPrecision p :
       {kernels::WeightPrecision::kFp32, kernels::WeightPrecision::kFp16,
        kernels::WeightPrecision::kInt8})
    names.push_back(kernels::weight_precision_name(p));
  return cmd
      .add_option_function<std::string>(
          "--weights",
          [&precision](const std::string& name) {
            precision = kernels::parse_weight_precision(name);
          },
          "Precision of the vocoder's sampling weights on the CPU: fp32 (as trained), fp16 or "
          "int8 (per-row scales); fewer bytes sample faster (the GPU samples fp32)")
      ->check(CLI::IsMember(names))
      ->default_str(kernels::weight_precision_name(precision));
}

}  // namespace tts::cli
