// Averaging the weights of several acoustic models (a "model soup"). Runs fine-tuned from one
// starting point with different seeds (`tts train acoustic --init-from RUN --seed S`) land in one
// basin, and their element-wise mean generalises better than any of them: on the Asterisk voice,
// the mean of two such runs cut the development WER from 62% and 58% to 54%
// (docs/acoustic-model.md). Models trained from different random initialisations do not share a
// basin and their mean is not a model; nothing in the files can tell the two cases apart.
#pragma once

#include <filesystem>
#include <vector>

#include "tts/frontend/acoustic/model_files.h"

namespace tts::frontend {

// Loads every folder (load_acoustic_files) and returns the first one's config, features and symbol
// table with the element-wise mean of all the weights (summed in double precision). Throws
// std::invalid_argument when `dirs` is empty, and std::runtime_error naming the folder when one
// does not load or its config (mel statistics included), features or symbol table differ from the
// first folder's.
AcousticModelFiles average_acoustic_models(const std::vector<std::filesystem::path>& dirs);

// Which layers interpolate_toward_base mixes.
enum class InterpolatedLayers {
  all,        // every layer
  text_side,  // the embedding, encoder and duration predictor; the decoder stays the model's
};

// Moves `model`'s weights a share `share` (0 to 1) of the way back toward `base`, the model it was
// fine-tuned from: (1 − share)·model + share·base, over the chosen layers ("WiSE-FT", Wortsman et
// al. 2022: a fine-tuned model mixed with its starting point keeps more of what the starting point
// knew of data the fine-tuning corpus lacks). `base` is first restated in `model`'s mel statistics
// (mel_statistics.h), so the result keeps `model`'s config. Throws std::invalid_argument for a
// share outside [0, 1] and std::runtime_error when the architecture, features or symbol table
// differ.
void interpolate_toward_base(AcousticModelFiles& model, const AcousticModelFiles& base,
                             double share, InterpolatedLayers layers);

}  // namespace tts::frontend
