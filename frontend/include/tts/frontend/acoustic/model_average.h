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

}  // namespace tts::frontend
