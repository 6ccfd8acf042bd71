#include "tts/acoustic/model_average.h"

#include <stdexcept>
#include <string>

#include "tts/acoustic/mel_statistics.h"

namespace tts::acoustic {

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

void check_share(double share, const std::string& what) {
  if (!(share >= 0.0 && share <= 1.0))
    throw std::invalid_argument("the share of the base for " + what + " must be between 0 and 1");
}

// Whether parameter `name` belongs to the variance adaptor (weights.h).
bool is_variance_adaptor(const std::string& name) {
  return layer_contains("pitch", name) || layer_contains("energy", name);
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

MixShares MixShares::text_side(double share) {
  MixShares shares;
  for (const char* layer : {"embedding", "encoder", "duration"})
    shares.layers.push_back({layer, share});
  return shares;
}

double MixShares::share_for(const std::string& name) const {
  double result = share;
  std::size_t longest = 0;
  for (const Layer& entry : layers)
    if (layer_contains(entry.layer, name) && entry.layer.size() >= longest) {
      result = entry.share;
      longest = entry.layer.size();
    }
  return result;
}

void interpolate_toward_base(AcousticModelFiles& model, const AcousticModelFiles& base,
                             const MixShares& shares) {
  check_share(shares.share, "every layer");
  for (const MixShares::Layer& entry : shares.layers) {
    check_share(entry.share, "\"" + entry.layer + "\"");
    if (!layer_names_a_tensor(entry.layer, model.weights->parameters()))
      throw std::invalid_argument("\"" + entry.layer +
                                  "\" names no tensor of the model (names: weights.h, e.g. "
                                  "encoder, decoder.0, decoder.output)");
  }
  const AcousticConfig& config = model.weights->config();
  // A base from before the variance adaptor (the model was started from it with one added):
  // the adaptor's tensors, which it lacks, stay the model's.
  const bool base_lacks_variance = config.pitch_energy && !base.weights->config().pitch_energy;
  if (architecture_json(base.weights->config()) != architecture_json(config, base_lacks_variance))
    throw std::runtime_error("the base model's architecture differs from the fine-tuned model's");
  if (nlohmann::json(base.features) != nlohmann::json(model.features))
    throw std::runtime_error(
        "the base model's mel \"features\" differ from the fine-tuned model's");
  if (base.symbols->to_json() != model.symbols->to_json())
    throw std::runtime_error("the base model's symbol table differs from the fine-tuned model's");
  const AcousticWeights restated =
      restated_in_mel_statistics(*base.weights, config.mel_mean, config.mel_std);
  auto& p = model.weights->parameters();
  const auto& b = restated.parameters();
  for (const auto& entry : p.entries()) {
    if (base_lacks_variance && is_variance_adaptor(entry.name)) continue;
    const double share = shares.share_for(entry.name);
    if (share == 0.0) continue;
    const std::size_t from =
        b.entries().at(static_cast<std::size_t>(b.index_of(entry.name))).offset;
    for (std::size_t k = 0; k < entry.size(); ++k)
      p.data()[entry.offset + k] = static_cast<float>((1.0 - share) * p.data()[entry.offset + k] +
                                                      share * b.data()[from + k]);
  }
}

}  // namespace tts::acoustic
