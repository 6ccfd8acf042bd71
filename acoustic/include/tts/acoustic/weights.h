// The acoustic model's parameters: names, shapes, initialisation, and the layout the model code
// indexes them by. Matrices are out × in; a convolution's weight is out × (K·in), tap k of K at
// time offset k - K/2 (see kernels/conv1d.h). With C channels, D decoder channels, H duration
// channels, M mel channels, S alignment states per symbol:
//   embedding                                 C × symbols
//   encoder.i.{conv, conv_bias, norm_scale, norm_bias}
//                                             C × K·C, C, C, C
//   duration.{0,1}.{conv, conv_bias, norm_scale, norm_bias}
//                                             H × K·C (then H × K·H), H, H, H
//   duration.output, duration.output_bias     1 × H, 1 (log-duration in frames)
//   prior.weight, prior.bias                  MS × C, MS (per-state mel means, for alignment)
//   decoder.input, decoder.input_bias         D × (C + 2), D (expanded states + position)
//   decoder.i.{conv, conv_bias, norm_scale, norm_bias}
//                                             D × K·D, D, D, D
//   decoder.output, decoder.output_bias       M × D, M (normalised log-mel frames)
// and with the variance adaptor (config.pitch_energy; V variance channels, B bins), for X in
// pitch and energy:
//   X.{0,1}.{conv, conv_bias, norm_scale, norm_bias}
//                                             V × K·C (then V × K·V), V, V, V
//   X.output, X.output_bias                   1 × V, 1 (the token's normalised value)
//   X.embedding                               D × B (added to decoder.input's output per frame)
// and with more than one speaker (config.speakers = P):
//   speaker.embedding                         C × P (added to every token's encoder state)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tts/acoustic/config.h"
#include "tts/kernels/parameter_set.h"

namespace tts::acoustic {

// y = LN(ReLU(conv(x)) [+ x]); residual only when in and out widths agree.
struct ConvBlockLayout {
  int conv = -1, conv_bias = -1, norm_scale = -1, norm_bias = -1;
  int kernel = 1;
  bool residual = false;
};

struct LinearLayout {
  int weight = -1, bias = -1;
};

// One predictor of the variance adaptor and the embedding of the value it predicts.
struct VarianceLayout {
  std::vector<ConvBlockLayout> blocks;
  LinearLayout output;
  int embedding = -1;
};

struct AcousticLayout {
  int embedding = -1;
  std::vector<ConvBlockLayout> encoder, duration, decoder;
  LinearLayout duration_output, prior, decoder_input, decoder_output;
  bool has_variance = false;  // config.pitch_energy
  VarianceLayout pitch, energy;
  int speaker_embedding = -1;  // only when config.speakers > 1
};

class AcousticWeights {
 public:
  // Zero-valued parameters with the config's shapes (validates the config).
  explicit AcousticWeights(const AcousticConfig& config);

  // Scaled random initialisation, reproducible from `seed`; layer-norm scales start at 1.
  void initialise(uint64_t seed);

  const AcousticConfig& config() const { return config_; }
  const AcousticLayout& layout() const { return layout_; }
  kernels::ParameterSet& parameters() { return parameters_; }
  const kernels::ParameterSet& parameters() const { return parameters_; }

 private:
  AcousticConfig config_;
  AcousticLayout layout_;
  kernels::ParameterSet parameters_;
};

// Whether the tensor called `tensor` belongs to `layer`, which names one tensor or a group of them
// by the start of their names: "encoder" is every encoder block, "decoder.3" the fourth decoder
// block, "decoder.input" the decoder's input layer and its bias, "pitch" the pitch predictor and
// embedding. A tensor belongs when its name equals `layer` or continues it with '.' or '_'.
bool layer_contains(const std::string& layer, const std::string& tensor);

// Whether `layer` names at least one of `parameters`' tensors (a typo names none, and would
// otherwise silently select nothing).
bool layer_names_a_tensor(const std::string& layer, const kernels::ParameterSet& parameters);

}  // namespace tts::acoustic
