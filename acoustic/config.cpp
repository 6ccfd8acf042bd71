#include "tts/acoustic/config.h"

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

namespace tts::acoustic {

void AcousticConfig::validate() const {
  auto require = [](bool ok, const char* field, const char* rule) {
    if (!ok) throw std::invalid_argument(std::string("acoustic config: ") + field + " " + rule);
  };
  auto odd_kernel = [](int k) { return k >= 1 && k <= 31 && k % 2 == 1; };
  require(symbols >= 4 && symbols <= 65536, "symbols", "must be in 4..65536");
  require(channels >= 1 && channels <= 2048, "channels", "must be in 1..2048");
  require(encoder_blocks >= 0 && encoder_blocks <= 64, "encoder_blocks", "must be in 0..64");
  require(odd_kernel(encoder_kernel), "encoder_kernel", "must be odd and in 1..31");
  require(duration_channels >= 1 && duration_channels <= 2048, "duration_channels",
          "must be in 1..2048");
  require(odd_kernel(duration_kernel), "duration_kernel", "must be odd and in 1..31");
  require(decoder_channels >= 1 && decoder_channels <= 2048, "decoder_channels",
          "must be in 1..2048");
  require(decoder_blocks >= 0 && decoder_blocks <= 64, "decoder_blocks", "must be in 0..64");
  require(odd_kernel(decoder_kernel), "decoder_kernel", "must be odd and in 1..31");
  require(n_mels >= 1 && n_mels <= 512, "n_mels", "must be in 1..512");
  require(alignment_states >= 1 && alignment_states <= 4, "alignment_states", "must be in 1..4");
  require(variance_channels >= 1 && variance_channels <= 2048, "variance_channels",
          "must be in 1..2048");
  require(odd_kernel(variance_kernel), "variance_kernel", "must be odd and in 1..31");
  require(variance_bins >= 2 && variance_bins <= 4096, "variance_bins", "must be in 2..4096");
  require(std::isfinite(pitch_mean), "pitch_mean", "must be finite");
  require(std::isfinite(pitch_std) && pitch_std > 0.0f, "pitch_std", "must be finite and positive");
  require(std::isfinite(energy_mean), "energy_mean", "must be finite");
  require(std::isfinite(energy_std) && energy_std > 0.0f, "energy_std",
          "must be finite and positive");
  require(std::isfinite(pitch_spread) && pitch_spread > 0.0f && pitch_spread <= 4.0f,
          "pitch_spread", "must be in (0, 4]");
  require(speakers >= 1 && speakers <= 256, "speakers", "must be in 1..256");
  require(speaker >= 0 && speaker < speakers, "speaker", "must be in 0..speakers - 1");
  require(std::isfinite(mel_mean), "mel_mean", "must be finite");
  require(std::isfinite(mel_std) && mel_std > 0.0f, "mel_std", "must be finite and positive");
}

void to_json(nlohmann::json& j, const AcousticConfig& c) {
  j = {{"symbols", c.symbols},
       {"channels", c.channels},
       {"encoder_blocks", c.encoder_blocks},
       {"encoder_kernel", c.encoder_kernel},
       {"duration_channels", c.duration_channels},
       {"duration_kernel", c.duration_kernel},
       {"decoder_channels", c.decoder_channels},
       {"decoder_blocks", c.decoder_blocks},
       {"decoder_kernel", c.decoder_kernel},
       {"n_mels", c.n_mels},
       {"alignment_states", c.alignment_states},
       {"mel_mean", c.mel_mean},
       {"mel_std", c.mel_std},
       {"pitch_energy", c.pitch_energy}};
  if (c.pitch_energy) {
    j["variance_channels"] = c.variance_channels;
    j["variance_kernel"] = c.variance_kernel;
    j["variance_bins"] = c.variance_bins;
    j["pitch_mean"] = c.pitch_mean;
    j["pitch_std"] = c.pitch_std;
    j["energy_mean"] = c.energy_mean;
    j["energy_std"] = c.energy_std;
    j["pitch_spread"] = c.pitch_spread;
  }
  if (c.speakers > 1) {
    j["speakers"] = c.speakers;
    j["speaker"] = c.speaker;
  }
}

nlohmann::json architecture_json(const AcousticConfig& c, bool without_variance,
                                 bool without_speakers) {
  nlohmann::json j = c;
  for (const char* field : {"mel_mean", "mel_std", "pitch_mean", "pitch_std", "energy_mean",
                            "energy_std", "pitch_spread", "speaker"})
    j.erase(field);
  if (without_variance || !c.pitch_energy)
    for (const char* field :
         {"pitch_energy", "variance_channels", "variance_kernel", "variance_bins"})
      j.erase(field);
  if (without_speakers) j.erase("speakers");
  return j;
}

void from_json(const nlohmann::json& j, AcousticConfig& c) {
  if (!j.is_object()) throw std::invalid_argument("acoustic config: expected a JSON object");
  static const std::set<std::string> known = {
      "symbols",           "channels",        "encoder_blocks",    "encoder_kernel",
      "duration_channels", "duration_kernel", "decoder_channels",  "decoder_blocks",
      "decoder_kernel",    "n_mels",          "mel_mean",          "mel_std",
      "alignment_states",  "pitch_energy",    "variance_channels", "variance_kernel",
      "variance_bins",     "pitch_mean",      "pitch_std",         "energy_mean",
      "energy_std",        "pitch_spread",    "speakers",          "speaker"};
  for (const auto& [key, value] : j.items())
    if (!known.count(key))
      throw std::invalid_argument("acoustic config: unknown field \"" + key + "\"");
  auto read_int = [&](const char* key, int& field) {
    if (!j.contains(key)) return;
    if (!j.at(key).is_number_integer())
      throw std::invalid_argument(std::string("acoustic config: ") + key + " must be an integer");
    field = j.at(key).get<int>();
  };
  auto read_float = [&](const char* key, float& field) {
    if (!j.contains(key)) return;
    if (!j.at(key).is_number())
      throw std::invalid_argument(std::string("acoustic config: ") + key + " must be a number");
    field = j.at(key).get<float>();
  };
  read_int("symbols", c.symbols);
  read_int("channels", c.channels);
  read_int("encoder_blocks", c.encoder_blocks);
  read_int("encoder_kernel", c.encoder_kernel);
  read_int("duration_channels", c.duration_channels);
  read_int("duration_kernel", c.duration_kernel);
  read_int("decoder_channels", c.decoder_channels);
  read_int("decoder_blocks", c.decoder_blocks);
  read_int("decoder_kernel", c.decoder_kernel);
  read_int("n_mels", c.n_mels);
  c.alignment_states = 1;
  read_int("alignment_states", c.alignment_states);
  read_float("mel_mean", c.mel_mean);
  read_float("mel_std", c.mel_std);
  if (j.contains("pitch_energy")) {
    if (!j.at("pitch_energy").is_boolean())
      throw std::invalid_argument("acoustic config: pitch_energy must be true or false");
    c.pitch_energy = j.at("pitch_energy").get<bool>();
  }
  read_int("variance_channels", c.variance_channels);
  read_int("variance_kernel", c.variance_kernel);
  read_int("variance_bins", c.variance_bins);
  read_float("pitch_mean", c.pitch_mean);
  read_float("pitch_std", c.pitch_std);
  read_float("energy_mean", c.energy_mean);
  read_float("energy_std", c.energy_std);
  read_float("pitch_spread", c.pitch_spread);
  read_int("speakers", c.speakers);
  read_int("speaker", c.speaker);
}

}  // namespace tts::acoustic
