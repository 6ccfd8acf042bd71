// Hyper-parameters of the FastSpeech-style acoustic model, read from and written to JSON.
#pragma once

#include <nlohmann/json.hpp>

namespace tts::frontend {

struct AcousticConfig {
  int symbols = 0;         // rows of the phoneme embedding (the symbol table's size)
  int channels = 128;      // encoder width (embedding size)
  int encoder_blocks = 3;  // conv + ReLU + residual + layer norm blocks
  int encoder_kernel = 5;
  int duration_channels = 128;  // the duration predictor: 2 conv blocks, then a linear to 1
  int duration_kernel = 3;
  int decoder_channels = 128;
  int decoder_blocks = 4;
  int decoder_kernel = 5;
  int n_mels = 80;  // must equal the features' n_mels
  // The model works on normalised log-mels (mel - mel_mean) / mel_std; the trainer measures them
  // on the training corpus and synthesis undoes them.
  float mel_mean = 0.0f;
  float mel_std = 1.0f;

  // Throws std::invalid_argument naming the field when a value is out of range.
  void validate() const;
};

void to_json(nlohmann::json& j, const AcousticConfig& c);
// Missing fields keep their defaults; unknown fields and wrong types are rejected (naming them).
void from_json(const nlohmann::json& j, AcousticConfig& c);

}  // namespace tts::frontend
