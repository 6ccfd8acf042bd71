// The corpus statistics an acoustic model's targets are normalised with (log-mel frames, and log F0
// and log energy for the variance adaptor), recorded in its config.
#pragma once

#include <iosfwd>
#include <vector>

#include "tts/acoustic/config.h"
#include "tts/train/acoustic_corpus.h"

namespace tts::train {

// The statistics the targets are normalised with: measured on the training frames, or, for a run
// that trains only some layers (`kept`, the starting model's config), the starting model's. Its
// frozen layers were fitted to those (the decoder's output to its mel statistics, the pitch
// predictor to its log F0 ones), and a corpus made to teach the trained layers something new
// (pitch-shifted copies of the recordings, scripts/build-pitch-shifted-corpus) has statistics of
// its own. A variance adaptor that the starting model lacks is new: its statistics are measured.
void set_corpus_statistics(const std::vector<AcousticUtterance>& training,
                           const acoustic::AcousticConfig* kept, acoustic::AcousticConfig& config,
                           std::ostream& log);

}  // namespace tts::train
