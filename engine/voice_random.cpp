#include "tts/engine/voice_random.h"

#include <stdexcept>

#include "tts/acoustic/model_files.h"
#include "tts/engine/voice.h"
#include "tts/vocoder/model_files.h"

namespace tts::engine {

void create_random_voice(const std::filesystem::path& folder, const RandomVoiceOptions& options) {
  if (options.size != "tiny" && options.size != "full")
    throw std::invalid_argument("random voice size must be \"tiny\" or \"full\", not \"" +
                                options.size + "\"");
  const bool tiny = options.size == "tiny";
  const frontend::SymbolTable& symbols = frontend::SymbolTable::default_table();
  const kernels::MelConfig features;  // 16 kHz, hop 200, 80 mels: the vocoder's defaults too

  vocoder::WaveNetConfig wavenet;
  wavenet.sample_rate = features.sample_rate;
  wavenet.hop_length = features.hop_length;
  wavenet.mel_channels = features.n_mels;
  if (tiny) {
    wavenet.layers = 4;
    wavenet.dilation_cycle = 4;
    wavenet.residual_channels = 8;
    wavenet.skip_channels = 16;
  }
  vocoder::WaveNetWeights vocoder_weights(wavenet);
  vocoder_weights.initialise(options.seed);
  vocoder::save_vocoder(folder / "vocoder", vocoder_weights, features);

  acoustic::AcousticConfig acoustic;
  acoustic.symbols = static_cast<int>(symbols.size());
  acoustic.n_mels = features.n_mels;
  if (tiny) {
    acoustic.channels = 16;
    acoustic.encoder_blocks = 1;
    acoustic.duration_channels = 16;
    acoustic.decoder_channels = 16;
    acoustic.decoder_blocks = 1;
  }
  acoustic::AcousticWeights acoustic_weights(acoustic);
  acoustic_weights.initialise(options.seed + 1);
  acoustic::save_acoustic_model(folder / "acoustic", acoustic_weights, features, symbols);

  VoiceManifest manifest;
  manifest.name = options.name;
  manifest.language = options.language;
  manifest.languages = options.languages;
  manifest.espeak_voices = options.espeak_voices;
  manifest.licence = "CC0-1.0";
  manifest.source = "none: randomly initialised weights (seed " + std::to_string(options.seed) +
                    "), for tests and benchmarks";
  manifest.description = "A " + options.size + " random voice: it babbles.";
  write_voice_manifest(folder, manifest, symbols);
}

}  // namespace tts::engine
