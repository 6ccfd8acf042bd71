// A trained vocoder on disk: DIR/vocoder.json (format version, WaveNet config, mel features) and
// DIR/vocoder.safetensors (the weights, named as in weights.h).
#pragma once

#include <filesystem>
#include <memory>

#include "tts/kernels/mel.h"
#include "tts/vocoder/weights.h"

namespace tts::vocoder {

inline constexpr int kVocoderFormatVersion = 1;

struct VocoderModel {
  kernels::MelConfig features;
  std::unique_ptr<WaveNetWeights> weights;
};

// Writes both files atomically (weights first, then the JSON that names them).
void save_vocoder(const std::filesystem::path& dir, const WaveNetWeights& weights,
                  const kernels::MelConfig& features);

// Loads and checks both files; throws std::runtime_error naming the file and the problem.
VocoderModel load_vocoder(const std::filesystem::path& dir);

// The JSON document of vocoder.json.
nlohmann::json vocoder_json(const WaveNetConfig& config, const kernels::MelConfig& features);

// Checks that the features the vocoder expects agree with its own config (rate, hop, mel count).
void check_features_match(const WaveNetConfig& config, const kernels::MelConfig& features);

}  // namespace tts::vocoder
