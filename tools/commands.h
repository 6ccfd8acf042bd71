// Each `tts` subcommand lives in its own cmd_*.cpp and is registered here.
#pragma once

#include <CLI/CLI.hpp>

#include "command_line.h"

namespace tts::cli {

void register_say(CLI::App& app, int& exit_code);
void register_voices(CLI::App& app, int& exit_code);
void register_voices_create(CLI::App& voices, int& exit_code);  // `tts voices create`
// `tts voices export`, `install` and `remove`
void register_voices_sharing(CLI::App& voices, int& exit_code);
void register_phonemize(CLI::App& app, int& exit_code);
void register_bench(CLI::App& app, int& exit_code);
void register_bench_pipeline(CLI::App& bench, int& exit_code);  // under `tts bench`
void register_bench_streams(CLI::App& bench, int& exit_code);   // under `tts bench`
// `tts train ...`: runs the trainer, the program tts-train beside this one (another package).
void register_train_forwarding(CLI::App& app, int& exit_code);
void register_vocode(CLI::App& app, int& exit_code);
void register_mel(CLI::App& app, int& exit_code);
void register_pitch(CLI::App& app, int& exit_code);
void register_synth_mel(CLI::App& app, int& exit_code);
void register_serve(CLI::App& app, int& exit_code);
void register_devices(CLI::App& app, int& exit_code);

}  // namespace tts::cli
