// The trainer's subcommands (`tts train vocoder|acoustic|...`, the program tts-train): each lives
// in its own cmd_*.cpp and is registered in main.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "command_line.h"
#include "tts/train/communicator.h"

namespace tts::cli {

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

void register_train_vocoder(CLI::App& train, int& exit_code);
void register_train_acoustic(CLI::App& train, int& exit_code);
void register_train_aligned_mels(CLI::App& train, int& exit_code);
void register_train_acoustic_average(CLI::App& train, int& exit_code);
void register_train_score_acoustic(CLI::App& train, int& exit_code);
void register_train_calibrate_pitch(CLI::App& train, int& exit_code);

}  // namespace tts::cli
