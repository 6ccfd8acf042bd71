// Each `tts` subcommand lives in its own cmd_*.cpp and is registered here.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "tts/train/communicator.h"

namespace tts::cli {

// Exit codes shared by every subcommand (documented in `tts --help`).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,   // the command ran and failed (synthesis, training, I/O)
  kExitUsage = 2,     // bad options or arguments
  kExitBadInput = 3,  // unreadable or malformed input file, text or voice
  kExitNoDevice = 4,  // no audio output device (use -o FILE)
};

// Checks a --seed: decimal digits for a number from 0 to 2^64 - 1. Without it CLI11 wraps "-1"
// round to 2^64 - 1 and clamps a number past 2^64 to it, so that two different seeds given would
// sample alike.
CLI::Validator seed_validator();

// The JSON document of a --config file; CLI::ValidationError (a usage error) naming it otherwise.
nlohmann::json read_config_file(const std::string& path);

// A corpus folder named on the command line as DIR, or DIR:LANG with its transcripts' espeak-ng
// language (a folder whose own name holds a colon is taken whole when it exists).
struct CorpusFolder {
  std::string dir;
  std::string language;  // empty: the command's --lang
};
CorpusFolder parse_corpus_folder(const std::string& value);
// Checks that DIR exists and LANG, when given, is not empty.
CLI::Validator corpus_folder_validator();

// The options of the commands that run a finished acoustic model over a corpus of recordings
// (`train aligned-mels`, `train score-acoustic`): --model, --data, --lang and --threads.
void add_model_and_corpus_options(CLI::App& cmd, std::string& model, std::string& data,
                                  std::string& language, int& loader_threads);

// Runs `train` (a `tts train vocoder|acoustic` run) on this rank of `ranks`. When it throws and
// other ranks are running, prints "tts: rank R of N: WHAT; ending every rank" and ends the whole
// job with kExitFailure (MPI_Abort), since they would otherwise wait for this rank forever;
// alone, the exception goes on to main's handler.
void run_on_every_rank(train::Communicator& ranks, const std::function<void()>& train);

void register_say(CLI::App& app, int& exit_code);
void register_voices(CLI::App& app, int& exit_code);
void register_voices_create(CLI::App& voices, int& exit_code);  // `tts voices create`
// `tts voices export`, `install` and `remove`
void register_voices_sharing(CLI::App& voices, int& exit_code);
void register_phonemize(CLI::App& app, int& exit_code);
void register_bench(CLI::App& app, int& exit_code);
void register_bench_pipeline(CLI::App& bench, int& exit_code);  // under `tts bench`
void register_bench_streams(CLI::App& bench, int& exit_code);   // under `tts bench`
void register_train(CLI::App& app, int& exit_code);
void register_train_acoustic(CLI::App& train, int& exit_code);          // under `train`
void register_train_aligned_mels(CLI::App& train, int& exit_code);      // under `train`
void register_train_acoustic_average(CLI::App& train, int& exit_code);  // under `train`
void register_train_score_acoustic(CLI::App& train, int& exit_code);    // under `train`
void register_train_calibrate_pitch(CLI::App& train, int& exit_code);   // under `train`
void register_vocode(CLI::App& app, int& exit_code);
void register_mel(CLI::App& app, int& exit_code);
void register_pitch(CLI::App& app, int& exit_code);
void register_synth_mel(CLI::App& app, int& exit_code);
void register_serve(CLI::App& app, int& exit_code);
void register_devices(CLI::App& app, int& exit_code);

}  // namespace tts::cli
