// The WaveNet's parameters: names, shapes, initialisation, and typed views for the model code.
//
// Tensors (R residual, S skip, A classes, M mel channels, L layers; matrices are out × in):
//   embedding            R × A        input "convolution" over the previous sample's one-hot class
//   conditioning         L·2R × M     every layer's 1×1 projection of the mel frame, stacked
//   dilated_bias         L·2R         every layer's gate bias, stacked
//   layers.i.dilated     2R × 2R      [W_past W_now]: kernel-2 dilated causal convolution
//   layers.i.residual    R × R        (i < L-1; the last layer has no residual output)
//   layers.i.residual_bias R
//   skip                 S × L·R      every layer's skip 1×1 convolution, side by side
//   skip_bias            S
//   head.hidden, head.hidden_bias     S × S, S
//   head.output, head.output_bias     A × S, A
#pragma once

#include <cstdint>
#include <vector>

#include "tts/kernels/parameter_set.h"
#include "tts/vocoder/config.h"

namespace tts::vocoder {

// Indices of each tensor in a ParameterSet built by make_parameters (same for values and grads).
struct WaveNetLayout {
  int embedding = -1, conditioning = -1, dilated_bias = -1, skip = -1, skip_bias = -1;
  int head_hidden = -1, head_hidden_bias = -1, head_output = -1, head_output_bias = -1;
  std::vector<int> dilated, residual, residual_bias;
};

class WaveNetWeights {
 public:
  // Zero-valued parameters with the config's shapes.
  explicit WaveNetWeights(const WaveNetConfig& config);

  // Fills the parameters with a scaled random initialisation, reproducible from `seed`.
  void initialise(uint64_t seed);

  const WaveNetConfig& config() const { return config_; }
  const WaveNetLayout& layout() const { return layout_; }
  kernels::ParameterSet& parameters() { return parameters_; }
  const kernels::ParameterSet& parameters() const { return parameters_; }

 private:
  WaveNetConfig config_;
  WaveNetLayout layout_;
  kernels::ParameterSet parameters_;
};

}  // namespace tts::vocoder
