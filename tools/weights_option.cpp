#include "weights_option.h"

#include <string>
#include <vector>

namespace tts::cli {

CLI::Option* add_weights_option(CLI::App& cmd, kernels::WeightPrecision& precision) {
  std::vector<std::string> names = {"auto"};
  for (const kernels::WeightPrecision p :
       {kernels::WeightPrecision::kFp32, kernels::WeightPrecision::kFp16,
        kernels::WeightPrecision::kInt8})
    names.push_back(kernels::weight_precision_name(p));
  return cmd
      .add_option_function<std::string>(
          "--weights",
          [&precision](const std::string& name) {
            precision = name == "auto" ? kernels::default_weight_precision()
                                       : kernels::parse_weight_precision(name);
          },
          "Precision of the vocoder's sampling weights on the CPU: fp32 (as trained), fp16, or "
          "int8 (per-row scales, products in 8-bit integers). auto: int8 on x86-64 with AVX2, "
          "fp16 on AVX-512 and Arm, fp32 on older x86-64. The GPU samples fp32")
      ->check(CLI::IsMember(names))
      ->default_str("auto");
}

}  // namespace tts::cli
