// `tts train aligned-mels`: an acoustic model's log-mel frames for every recording of a corpus,
// with the durations the aligner finds in the recording, as ID.npy files for
// `tts train vocoder --predicted-mels` (ground-truth-aligned fine-tuning, docs/vocoder.md).
#include <iostream>

#include "train_commands.h"
#include "tts/train/predicted_mels.h"

namespace tts::cli {

void register_train_aligned_mels(CLI::App& train, int& exit_code) {
  auto o = std::make_shared<train::AlignedMelOptions>();
  auto model = std::make_shared<std::string>(), data = std::make_shared<std::string>(),
       out = std::make_shared<std::string>();
  CLI::App* cmd = train.add_subcommand(
      "aligned-mels", "Write an acoustic model's frames for each recording, aligned to it (.npy)");
  cmd->footer(
      "Each OUT/ID.npy is float32 (frames, n_mels) with exactly the recording's frame count, so\n"
      "`tts train vocoder --predicted-mels OUT` can condition on it in place of the recording's "
      "own\n"
      "frames. Use a model that did not train on these recordings (scripts/make-aligned-mels\n"
      "trains two on halves of the corpus), or the frames are better than synthesis will give.");
  add_model_and_corpus_options(*cmd, *model, *data, o->language, o->loader_threads);
  cmd->add_option("--out", *out, "Output folder for ID.npy")->required();
  cmd->callback([=, &exit_code] {
    o->model_dir = *model;
    o->data_dir = *data;
    o->out_dir = *out;
    const int written = train::write_aligned_mels(*o, std::cerr);
    std::cerr << "wrote the aligned frames of " << written << " recordings to "
              << o->out_dir.string() << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
