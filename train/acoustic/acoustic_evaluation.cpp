#include "tts/train/acoustic_evaluation.h"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "tts/kernels/atomic_file.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {

// The losses per frame over the first `count` utterances (all of them by default), each aligned
// by MAS, in batches of 8.
acoustic::AcousticLosses mean_losses(const acoustic::AcousticWeights& weights,
                                     const acoustic::AcousticLossSettings& settings,
                                     const std::vector<AcousticUtterance>& utterances,
                                     std::size_t count) {
  count = std::min(count, utterances.size());
  acoustic::AcousticPass pass(weights, settings);
  acoustic::AcousticLosses sum;
  double frames = 0.0;
  for (std::size_t i = 0; i < count; i += 8) {
    const acoustic::AcousticBatch batch =
        pack_utterances(utterances, i, std::min<std::size_t>(8, count - i));
    const double n = static_cast<double>(batch.mel.cols());
    const acoustic::AcousticLosses losses = pass.forward(batch);
    sum.mel += losses.mel * n;
    sum.prior += losses.prior * n;
    frames += n;
  }
  frames = std::max(1.0, frames);
  sum.mel /= frames;
  sum.prior /= frames;
  return sum;
}

}  // namespace

// Mean mel loss in log-mel units over the held-out utterances, aligned by MAS.
double validation_mel_loss(const acoustic::AcousticWeights& weights,
                           const acoustic::AcousticLossSettings& settings,
                           const std::vector<AcousticUtterance>& held) {
  return mean_losses(weights, settings, held, held.size()).mel * weights.config().mel_std;
}

// How well the aligner's prior explains the first (at most 256) training utterances under their
// searched alignments: the mean prior loss per frame. The criterion by which alignment restarts
// are compared: a run whose states settled badly from the flat start fits worse (seeds 1-6 of
// scripts/check-aligner: 0.047-0.050 against 0.053 for the one that placed 80% of boundaries).
double alignment_fit(const acoustic::AcousticWeights& weights,
                     const acoustic::AcousticLossSettings& settings,
                     const std::vector<AcousticUtterance>& training) {
  return mean_losses(weights, settings, training, 256).prior;
}

void write_alignments(const acoustic::AcousticWeights& weights,
                      const acoustic::AcousticLossSettings& settings, const AcousticCorpus& corpus,
                      const fs::path& path, std::ostream& log) {
  std::ostringstream text;
  acoustic::AcousticPass pass(weights, settings);
  double prior = 0.0, frames = 0.0;
  for (const auto* set : {&corpus.training, &corpus.validation}) {
    for (std::size_t i = 0; i < set->size(); ++i) {
      const AcousticUtterance& u = (*set)[i];
      const acoustic::AcousticBatch batch = pack_utterances(*set, i, 1);
      const double n = static_cast<double>(batch.mel.cols());
      prior += pass.forward(batch).prior * n;
      frames += n;
      const std::vector<int>& durations = pass.durations();
      text << u.id << "\t";
      for (std::size_t k = 0; k < u.ids.size(); ++k) text << (k ? " " : "") << u.ids[k];
      text << "\t";
      for (std::size_t k = 0; k < durations.size(); ++k) text << (k ? " " : "") << durations[k];
      text << "\n";
    }
  }
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  kernels::write_file_atomically(path, text.str());
  log << "alignment fit: prior loss " << prior / std::max(1.0, frames) << " over " << frames
      << " frames\n";
}

}  // namespace tts::train
