// ParameterSet ⇄ safetensors. Matrices are stored row-major with shape [rows, cols] (out × in, as
// PyTorch's Linear stores them), vectors with shape [rows]; values are F32.
#pragma once

#include <string>

#include "tts/kernels/parameter_set.h"
#include "tts/kernels/safetensors.h"

namespace tts::kernels {

// Adds every tensor of `parameters` as `prefix + name`.
void add_parameters(SafetensorsWriter& writer, const ParameterSet& parameters,
                    const std::string& prefix = "");

// Fills `parameters` from `prefix + name` tensors, checking each one's presence, dtype and shape;
// throws SafetensorsError naming the file, the tensor, and expected vs actual.
void read_parameters(const SafetensorsFile& file, ParameterSet& parameters,
                     const std::string& prefix = "");

}  // namespace tts::kernels
