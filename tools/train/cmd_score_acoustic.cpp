// `tts train score-acoustic`: how near an acoustic model (a run or a voice's acoustic/) comes to
// recordings it did not train on; one JSON line, for comparing runs, mixes and voices on likeness.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "train_commands.h"
#include "tts/kernels/atomic_file.h"
#include "tts/train/acoustic_score.h"

namespace tts::cli {

namespace {
// One id a line; blank lines and lines starting with # are skipped (the voices' held-out.txt).
std::vector<std::string> read_ids(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read the list of ids");
  std::vector<std::string> ids;
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    ids.push_back(line.substr(first, last - first + 1));
  }
  if (ids.empty()) throw std::runtime_error(path + ": lists no ids");
  return ids;
}
void write_per_utterance(const std::string& path, const std::vector<train::UtteranceScore>& rows) {
  std::ostringstream table;
  table << "id\tframes\taligned_mel_l1\tprior_nll\tvalidation\n" << std::setprecision(6);
  for (const auto& r : rows)
    table << r.id << '\t' << r.frames << '\t' << r.aligned_mel_l1 << '\t' << r.prior_nll << '\t'
          << (r.validation ? 1 : 0) << '\n';
  kernels::write_file_atomically(path, table.str());
}
}  // namespace

void register_train_score_acoustic(CLI::App& train, int& exit_code) {
  auto o = std::make_shared<train::AcousticScoreOptions>();
  auto model = std::make_shared<std::string>(), data = std::make_shared<std::string>(),
       ids = std::make_shared<std::string>(), per_utterance = std::make_shared<std::string>();
  CLI::App* cmd = train.add_subcommand(
      "score-acoustic", "Score an acoustic model against recordings (held-out likeness, JSON)");
  cmd->footer(
      "Prints one JSON line: aligned_mel_l1 (mean |log-mel error| of the model's frames with the\n"
      "recording's own alignment: the training's validation mel loss), log_duration_l1 (per\n"
      "sounding phone, predicted against aligned log(1 + frames)) and length_ratio (frames that\n"
      "synthesis makes for the transcripts over the recordings' frames; 1 = her pace).\n"
      "Score recordings the model did not train on, e.g. --ids voices/default/held-out.txt.\n"
      "--per-utterance FILE lists each recording's scores: one far above the others is worth a\n"
      "listen (clipped, recorded at a lower rate, or, for a model that never trained on it, a\n"
      "transcript that is not what was said; a model learns a wrong transcript's recording\n"
      "within a few hundred steps, so its own training recordings hide theirs).");
  add_model_and_corpus_options(*cmd, *model, *data, o->language, o->loader_threads);
  cmd->add_option("--ids", *ids, "File of recording ids to score, one a line (default: all)")
      ->check(CLI::ExistingFile);
  cmd->add_option(
      "--per-utterance", *per_utterance,
      "Also write each recording's scores to this TSV file (id, frames, "
      "aligned_mel_l1, prior_nll, validation: 1 for those a model trained on the folder kept out)");
  cmd->callback([=, &exit_code] {
    o->model_dir = *model;
    o->data_dir = *data;
    // Everything here only reads: a problem is the model's, the corpus's or the list's.
    train::AcousticScore s;
    try {
      if (!ids->empty()) o->ids = read_ids(*ids);
      s = train::score_acoustic_model(*o, std::cerr);
      if (!per_utterance->empty()) write_per_utterance(*per_utterance, s.per_utterance);
    } catch (const std::exception& e) {
      std::cerr << "tts train score-acoustic: " << e.what() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    const nlohmann::json line = {{"model", o->model_dir.string()},
                                 {"utterances", s.utterances},
                                 {"frames", s.frames},
                                 {"aligned_mel_l1", s.aligned_mel_l1},
                                 {"log_duration_l1", s.log_duration_l1},
                                 {"synthesized_frames", s.synthesized_frames},
                                 {"length_ratio", s.length_ratio()}};
    std::cout << line.dump() << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
