// The checkpoint files every trainer writes: OUT/checkpoint-STEP.safetensors (weights, EMA weights,
// Adam moments, as "weights." / "ema." / "adam_m." / "adam_v." tensors) and OUT/checkpoint.json,
// written last as the commit point: a crash at any moment leaves a complete earlier checkpoint.
// checkpoint.json lists the size and CRC-32 of the weights file ("files", as voice.json does), so
// that a damaged file is refused on resume instead of training on silently.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tts/kernels/parameter_set.h"

namespace tts::train {

// weights, ema, first moment, second moment.
using CheckpointTensors = std::array<const kernels::ParameterSet*, 4>;
using MutableCheckpointTensors = std::array<kernels::ParameterSet*, 4>;

// Writes the tensors, then checkpoint.json holding `fields` plus format, format_version, step,
// seed, the weights file's name and its checksum, then removes the weights file of the previous
// checkpoint. First removes the temporaries of writes killed in OUT
// (kernels::remove_stale_temporaries).
void write_checkpoint_files(const std::filesystem::path& out_dir, const std::string& format,
                            int64_t step, uint64_t seed, const CheckpointTensors& tensors,
                            nlohmann::json fields);

// checkpoint.json of OUT for a run about to resume, read before any other work: throws
// std::runtime_error "OUT: no checkpoint to resume from …" when there is none, and "OUT/
// checkpoint.json: cannot resume: …" when it is not of `format` and this version, lacks its step
// or seed, names as its weights the file of another step (an edited "step"), or a file it lists
// no longer matches its size and CRC-32 (naming that file). A
// checkpoint without checksums (an older one) passes with a warning appended to `warnings`.
// Removes the temporaries of writes killed in OUT, as a write does.
nlohmann::json read_checkpoint_header(const std::filesystem::path& out_dir,
                                      const std::string& format,
                                      std::vector<std::string>* warnings = nullptr);

// Throws std::runtime_error naming both seeds unless `asked` (this run's --seed) is `recorded`
// (the seed of the run the checkpoint continues).
void check_resume_seed(const std::filesystem::path& out_dir, uint64_t recorded, uint64_t asked);

// What a resume says when the checkpoint's `step` already reaches the run's `steps`.
std::string already_trained_message(const std::filesystem::path& out_dir, int64_t step,
                                    int64_t steps);

// Reads OUT/checkpoint.json (as read_checkpoint_header, checksums included), checks that its step
// and seed are those the weights file records in its metadata, lets `check`
// inspect the JSON (to compare configs), reads the tensors into `tensors`, and returns the JSON.
// Any failure throws std::runtime_error "OUT/checkpoint.json: cannot resume: …".
nlohmann::json read_checkpoint_files(const std::filesystem::path& out_dir,
                                     const std::string& format,
                                     const MutableCheckpointTensors& tensors,
                                     const std::function<void(const nlohmann::json&)>& check,
                                     std::vector<std::string>* warnings = nullptr);

bool has_checkpoint(const std::filesystem::path& out_dir);

}  // namespace tts::train
