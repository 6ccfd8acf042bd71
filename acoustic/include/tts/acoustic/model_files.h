// A trained acoustic model on disk: DIR/acoustic.json (format, version, config, mel features, the
// symbol table) beside DIR/acoustic.safetensors (the weights, named as in weights.h).
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "tts/acoustic/weights.h"
#include "tts/frontend/symbol_table.h"
#include "tts/kernels/mel.h"

namespace tts::acoustic {

// Version 2: the duration predictor outputs log(1 + frames), and tokens may last zero frames.
// Version 3: the variance adaptor (config.pitch_energy; its tensors in weights.h). Version 2 files
// are still read, as models without it, and a model without it is written as version 2.
// Version 4: several speakers (config.speakers > 1, the speaker embedding); a model of one speaker
// is still written as version 3 (or 2), which every earlier reader reads.
inline constexpr int kAcousticFormatVersion = 3;
inline constexpr int kAcousticFormatVersionWithoutPitch = 2;
inline constexpr int kAcousticFormatVersionWithSpeakers = 4;

struct AcousticModelFiles {
  kernels::MelConfig features;
  std::unique_ptr<frontend::SymbolTable> symbols;
  std::unique_ptr<AcousticWeights> weights;
};

// The JSON document of acoustic.json.
nlohmann::json acoustic_json(const AcousticConfig& config, const kernels::MelConfig& features,
                             const frontend::SymbolTable& symbols);

// Writes both files atomically (weights first, then the JSON that names them). Throws
// std::invalid_argument when the config, features and symbol table disagree.
void save_acoustic_model(const std::filesystem::path& dir, const AcousticWeights& weights,
                         const kernels::MelConfig& features, const frontend::SymbolTable& symbols);

// Reads and checks both files; throws std::runtime_error naming the file and the problem.
AcousticModelFiles load_acoustic_files(const std::filesystem::path& dir);

// Checks that config, features and symbol table agree (mel count, symbol count).
void check_acoustic_consistency(const AcousticConfig& config, const kernels::MelConfig& features,
                                const frontend::SymbolTable& symbols);

}  // namespace tts::acoustic
