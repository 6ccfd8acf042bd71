// Re-expressing an acoustic model in another corpus's mel statistics. The model predicts log-mel
// frames normalised by its training corpus's mean and standard deviation (config mel_mean,
// mel_std), and only two layers work in that normalised space: the decoder's output projection
// and the prior (the per-state mel means used for alignment). Both are affine, so rescaling them
// restates the model in other statistics exactly: it predicts the same frames and durations.
// Needed to mix a fine-tuned model with the model it was fine-tuned from (model_average.h): the
// two were normalised by different corpora.
#pragma once

#include "tts/acoustic/weights.h"

namespace tts::acoustic {

// A copy of `weights` whose config carries `mel_mean` and `mel_std` and whose decoder output and
// prior are rescaled to match. Throws std::invalid_argument unless both are finite and
// mel_std > 0.
AcousticWeights restated_in_mel_statistics(const AcousticWeights& weights, float mel_mean,
                                           float mel_std);

}  // namespace tts::acoustic
