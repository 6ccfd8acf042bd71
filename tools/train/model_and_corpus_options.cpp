// The options shared by the commands that run a finished acoustic model over recordings.
#include <filesystem>

#include "train_commands.h"

namespace tts::cli {

CorpusFolder parse_corpus_folder(const std::string& value) {
  const std::size_t colon = value.rfind(':');
  if (colon == std::string::npos || std::filesystem::is_directory(value)) return {value, ""};
  return {value.substr(0, colon), value.substr(colon + 1)};
}

CLI::Validator corpus_folder_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const CorpusFolder f = parse_corpus_folder(value);
        if (!std::filesystem::is_directory(f.dir)) return "Corpus folder does not exist: " + f.dir;
        if (value.back() == ':') return "No language after the colon in " + value;
        return "";
      },
      "DIR[:LANG]");
}

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
