#include "tts/frontend/acoustic/model_average.h"

#include <stdexcept>
#include <string>

namespace tts::frontend {

namespace {

// What in `model` differs from `first` (for the error message), or an empty string when they agree.
std::string difference(const AcousticModelFiles& first, const AcousticModelFiles& model) {
  if (nlohmann::json(model.weights->config()) != nlohmann::json(first.weights->config()))
    return "its \"acoustic\" config (architecture or mel statistics)";
  if (nlohmann::json(model.features) != nlohmann::json(first.features))
    return "its mel \"features\"";
  if (model.symbols->to_json() != first.symbols->to_json()) return "its symbol table";
  return {};
}

}  // namespace

AcousticModelFiles average_acoustic_models(const std::vector<std::filesystem::path>& dirs) {
  if (dirs.empty()) throw std::invalid_argument("average_acoustic_models: no model folders given");
  AcousticModelFiles average = load_acoustic_files(dirs.front());
  const std::size_t count = average.weights->parameters().size();
  std::vector<double> sum(average.weights->parameters().data(),
                          average.weights->parameters().data() + count);
  for (std::size_t m = 1; m < dirs.size(); ++m) {
    const AcousticModelFiles model = load_acoustic_files(dirs[m]);
    const std::string differs = difference(average, model);
    if (!differs.empty())
      throw std::runtime_error(dirs[m].string() + ": " + differs + " differs from " +
                               dirs.front().string() +
                               "'s; only models of one architecture, trained on one corpus, can "
                               "be averaged");
    const float* w = model.weights->parameters().data();
    for (std::size_t k = 0; k < count; ++k) sum[k] += w[k];
  }
  float* out = average.weights->parameters().data();
  for (std::size_t k = 0; k < count; ++k)
    out[k] = static_cast<float>(sum[k] / static_cast<double>(dirs.size()));
  return average;
}

}  // namespace tts::frontend
