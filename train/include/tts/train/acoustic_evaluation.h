// How an acoustic model under training is judged: its held-out mel loss, how well its aligner's
// prior fits the training corpus, and the alignments it makes (durations per symbol).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <vector>

#include "tts/acoustic/network.h"
#include "tts/acoustic/weights.h"
#include "tts/train/acoustic_corpus.h"

namespace tts::train {

// Mean mel loss in log-mel units over the held-out utterances, aligned by MAS.
double validation_mel_loss(const acoustic::AcousticWeights& weights,
                           const acoustic::AcousticLossSettings& settings,
                           const std::vector<AcousticUtterance>& held);

// How well the aligner's prior explains the first (at most 256) training utterances under their
// searched alignments: the mean prior loss per frame. The criterion by which alignment restarts
// are compared: a run whose states settled badly from the flat start fits worse (seeds 1-6 of
// scripts/check-aligner: 0.047-0.050 against 0.053 for the one that placed 80% of boundaries).
double alignment_fit(const acoustic::AcousticWeights& weights,
                     const acoustic::AcousticLossSettings& settings,
                     const std::vector<AcousticUtterance>& training);

// Writes each utterance's alignment (training then validation) to `path` as lines of
// "ID<tab>symbol ids<tab>frames per symbol", and logs the prior loss over all of them.
void write_alignments(const acoustic::AcousticWeights& weights,
                      const acoustic::AcousticLossSettings& settings, const AcousticCorpus& corpus,
                      const std::filesystem::path& path, std::ostream& log);

}  // namespace tts::train
