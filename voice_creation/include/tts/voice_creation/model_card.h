// The MODEL_CARD.md of a voice made by `tts voices create`: its recordings and licence, how it was
// made (base, steps, time, machine) and how its held-out prompts scored.
#pragma once

#include <filesystem>
#include <string>

#include "tts/voice_creation/creation_state.h"
#include "tts/voice_creation/intake.h"
#include "tts/voice_creation/report.h"

namespace tts::creation {

struct VoiceCreationOptions;

// "AMD EPYC 7B13, 2 cores" (from /proc/cpuinfo where it exists).
std::string describe_machine();

// Written atomically.
void write_model_card(const std::filesystem::path& path, const VoiceCreationOptions& options,
                      const IntakeReport& intake, const TrainingPlan& plan,
                      const CreationState& state, const VoiceReport& report);

}  // namespace tts::creation
