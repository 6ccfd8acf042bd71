// The checkpoint files every trainer writes: OUT/checkpoint-STEP.safetensors (weights, EMA weights,
// Adam moments, as "weights." / "ema." / "adam_m." / "adam_v." tensors) and OUT/checkpoint.json,
// written last as the commit point: a crash at any moment leaves a complete earlier checkpoint.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "tts/kernels/parameter_set.h"

namespace tts::train {

// weights, ema, first moment, second moment.
using CheckpointTensors = std::array<const kernels::ParameterSet*, 4>;
using MutableCheckpointTensors = std::array<kernels::ParameterSet*, 4>;

// Writes the tensors, then checkpoint.json holding `fields` plus format, format_version, step, seed
// and the weights file's name, then removes the weights file of the previous checkpoint.
void write_checkpoint_files(const std::filesystem::path& out_dir, const std::string& format,
                            int64_t step, uint64_t seed, const CheckpointTensors& tensors,
                            nlohmann::json fields);

// Reads OUT/checkpoint.json, checks its format and version, lets `check` inspect the JSON (to
// compare configs) before the tensors are read into `tensors`, and returns the JSON. Any failure
// throws std::runtime_error "OUT/checkpoint.json: cannot resume: …".
nlohmann::json read_checkpoint_files(const std::filesystem::path& out_dir,
                                     const std::string& format,
                                     const MutableCheckpointTensors& tensors,
                                     const std::function<void(const nlohmann::json&)>& check);

bool has_checkpoint(const std::filesystem::path& out_dir);

}  // namespace tts::train
