// The loss-scaling options of both training commands (`tts train vocoder`, `tts train acoustic`):
// --loss-scaling, --loss-scale-init, --loss-scale-growth-steps (tts/train/loss_scaler.h).
#pragma once

#include <CLI/CLI.hpp>

#include "tts/train/loss_scaler.h"

namespace tts::cli {

void add_loss_scaling_options(CLI::App& cmd, train::LossScalingOptions& options);

}  // namespace tts::cli
