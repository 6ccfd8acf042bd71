// A training checkpoint's values as floats, and how far two runs' values are apart: for the tests
// that compare runs which should train the same weights (gradient accumulation, data parallel).
#pragma once

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tts/kernels/safetensors.h"

namespace tts::testing_support {

// The values of OUT's checkpoint tensors whose names start with `prefix` ("weights.", "ema.",
// "adam_m.", "adam_v."), in the file's name order.
inline std::vector<float> checkpoint_values(const std::filesystem::path& out_dir,
                                            const std::string& prefix = "weights.") {
  std::ifstream in(out_dir / "checkpoint.json");
  const auto j = nlohmann::json::parse(in);
  const auto file = kernels::SafetensorsFile::load(out_dir / j.at("weights").get<std::string>());
  std::vector<float> values;
  for (const auto& name : file.names()) {
    if (name.rfind(prefix, 0) != 0) continue;
    const auto& t = file.tensor(name);
    const std::size_t n = t.nbytes / sizeof(float);
    values.resize(values.size() + n);
    std::memcpy(values.data() + values.size() - n, t.data, t.nbytes);
  }
  return values;
}

// ‖a − b‖ / ‖a‖ (in double); 1 for all-zero `a`, infinity for different sizes.
inline double normalised_difference(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size() || a.empty()) return INFINITY;
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    diff += d * d;
    norm += static_cast<double>(a[i]) * a[i];
  }
  return norm > 0.0 ? std::sqrt(diff / norm) : 1.0;
}

}  // namespace tts::testing_support
