// The `--weights` option of the commands that load a voice to speak with (say, serve, bench): the
// precision the CPU vocoder's sampling matrices are held in (tts/kernels/compact_matrix.h).
#pragma once

#include <CLI/CLI.hpp>

#include "tts/kernels/compact_matrix.h"

namespace tts::cli {

// `precision` holds the default (kernels::default_weight_precision()) until the option is given;
// "auto" sets that default.
CLI::Option* add_weights_option(CLI::App& cmd, kernels::WeightPrecision& precision);

}  // namespace tts::cli
