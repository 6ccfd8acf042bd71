#include "tts/vocoder/config.h"

#include <set>
#include <stdexcept>

namespace tts::vocoder {

std::vector<int> WaveNetConfig::dilations() const {
  std::vector<int> d(layers);
  for (int i = 0; i < layers; ++i) d[i] = 1 << (i % dilation_cycle);
  return d;
}

int WaveNetConfig::receptive_field() const {
  int field = 1;  // the causal input embedding looks at the previous sample only
  for (int d : dilations()) field += d;
  return field;
}

double WaveNetConfig::flops_per_sample() const {
  const double L = layers, R = residual_channels, S = skip_channels, A = classes;
  return L * (10 * R * R + 2 * R * S) + 2 * S * S + 2 * S * A;
}

double WaveNetConfig::conditioning_flops_per_sample() const {
  return 2.0 * layers * (2.0 * residual_channels) * mel_channels;
}

void WaveNetConfig::validate() const {
  auto require = [](bool ok, const char* field, const char* rule) {
    if (!ok) throw std::invalid_argument(std::string("vocoder config: ") + field + " " + rule);
  };
  require(layers >= 1 && layers <= 128, "layers", "must be in 1..128");
  require(dilation_cycle >= 1 && dilation_cycle <= 16, "dilation_cycle", "must be in 1..16");
  require(residual_channels >= 1 && residual_channels <= 1024, "residual_channels",
          "must be in 1..1024");
  require(skip_channels >= 1 && skip_channels <= 4096, "skip_channels", "must be in 1..4096");
  require(classes >= 2 && classes <= 65536, "classes", "must be in 2..65536");
  require(mel_channels >= 1 && mel_channels <= 512, "mel_channels", "must be in 1..512");
  require(hop_length >= 1 && hop_length <= 4096, "hop_length", "must be in 1..4096");
  require(sample_rate >= 1000 && sample_rate <= 192000, "sample_rate", "must be in 1000..192000");
  require(preemphasis >= 0.0f && preemphasis < 1.0f, "preemphasis", "must be in [0, 1)");
}

void to_json(nlohmann::json& j, const WaveNetConfig& c) {
  j = {{"layers", c.layers},
       {"dilation_cycle", c.dilation_cycle},
       {"residual_channels", c.residual_channels},
       {"skip_channels", c.skip_channels},
       {"classes", c.classes},
       {"mel_channels", c.mel_channels},
       {"hop_length", c.hop_length},
       {"sample_rate", c.sample_rate},
       {"preemphasis", c.preemphasis},
       {"receptive_field", c.receptive_field()}};
}

void from_json(const nlohmann::json& j, WaveNetConfig& c) {
  if (!j.is_object()) throw std::invalid_argument("vocoder config: expected a JSON object");
  static const std::set<std::string> known = {
      "layers",       "dilation_cycle", "residual_channels", "skip_channels",   "classes",
      "mel_channels", "hop_length",     "sample_rate",       "receptive_field", "preemphasis"};
  for (const auto& [key, value] : j.items())
    if (!known.count(key))
      throw std::invalid_argument("vocoder config: unknown field \"" + key + "\"");
  auto read = [&](const char* key, int& field) {
    if (!j.contains(key)) return;
    if (!j.at(key).is_number_integer())
      throw std::invalid_argument(std::string("vocoder config: ") + key + " must be an integer");
    field = j.at(key).get<int>();
  };
  read("layers", c.layers);
  read("dilation_cycle", c.dilation_cycle);
  read("residual_channels", c.residual_channels);
  read("skip_channels", c.skip_channels);
  read("classes", c.classes);
  read("mel_channels", c.mel_channels);
  read("hop_length", c.hop_length);
  read("sample_rate", c.sample_rate);
  if (j.contains("preemphasis")) {
    if (!j.at("preemphasis").is_number())
      throw std::invalid_argument("vocoder config: preemphasis must be a number");
    c.preemphasis = j.at("preemphasis").get<float>();
  }
  c.validate();
  // Written for readers of the file, never used to size anything: one that disagrees with the
  // layers means a hand-edited or mixed-up config.
  if (j.contains("receptive_field")) {
    const nlohmann::json& field = j.at("receptive_field");
    if (!field.is_number_integer())
      throw std::invalid_argument("vocoder config: receptive_field must be an integer");
    if (field.get<long long>() != c.receptive_field())
      throw std::invalid_argument(
          "vocoder config: receptive_field " + field.dump() + " differs from the " +
          std::to_string(c.receptive_field()) + " that layers " + std::to_string(c.layers) +
          " and dilation_cycle " + std::to_string(c.dilation_cycle) + " imply");
  }
}

}  // namespace tts::vocoder
