// The options shared by the commands that run a finished acoustic model over recordings.
#include "commands.h"

namespace tts::cli {

void add_model_and_corpus_options(CLI::App& cmd, std::string& model, std::string& data,
                                  std::string& language, int& loader_threads) {
  cmd.add_option("--model", model, "Acoustic model folder (a run's OUT or a voice's acoustic/)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd.add_option("--data", data, "LJSpeech-style folder: metadata.csv and wavs/")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd.add_option("--lang", language, "espeak-ng language of the transcripts")
      ->capture_default_str();
  cmd.add_option("--threads", loader_threads, "Loader threads")->check(CLI::Range(1, 256));
}

}  // namespace tts::cli
