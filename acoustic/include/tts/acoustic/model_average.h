// Averaging the weights of several acoustic models (a "model soup"). Runs fine-tuned from one
// starting point with different seeds (`tts train acoustic --init-from RUN --seed S`) land in one
// basin, and their element-wise mean generalises better than any of them: on the Asterisk voice,
// the mean of two such runs cut the development WER from 62% and 58% to 54%
// (docs/acoustic-model.md). Models trained from different random initialisations do not share a
// basin and their mean is not a model; nothing in the files can tell the two cases apart.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tts/acoustic/model_files.h"

namespace tts::acoustic {

// Loads every folder (load_acoustic_files) and returns the first one's config, features and symbol
// table with the element-wise mean of all the weights (summed in double precision). Throws
// std::invalid_argument when `dirs` is empty, and std::runtime_error naming the folder when one
// does not load or its config (mel statistics included), features or symbol table differ from the
// first folder's.
AcousticModelFiles average_acoustic_models(const std::vector<std::filesystem::path>& dirs);

// How far interpolate_toward_base moves each tensor toward the base: `share` for every tensor,
// except those a layer entry names (layer_contains, weights.h: "encoder", "decoder.3",
// "decoder.input", …), which take that entry's share; where several entries name a tensor, the
// longest `layer` wins.
struct MixShares {
  struct Layer {
    std::string layer;
    double share = 0.0;
  };
  double share = 0.0;
  std::vector<Layer> layers;

  // The text side (the embedding, encoder and duration predictor) mixed by `share`, the rest kept.
  static MixShares text_side(double share);
  // The share for the tensor called `name`.
  double share_for(const std::string& name) const;
};

// Moves `model`'s weights part of the way back toward `base`, the model it was fine-tuned from:
// (1 − a)·model + a·base, with a given per tensor by `shares` ("WiSE-FT", Wortsman et al. 2022: a
// fine-tuned model mixed with its starting point keeps more of what the starting point knew of
// data the fine-tuning corpus lacks). Per-layer shares exist because the layers trade differently:
// on the bundled voice, mixing the decoder's last blocks costs harmonicity that mixing its first
// blocks does not (docs/acoustic-model.md). `base` is first restated in `model`'s mel statistics
// (mel_statistics.h), so the result keeps `model`'s config. Throws std::invalid_argument for a
// share outside [0, 1] or a layer entry that names no tensor, and std::runtime_error when the
// architecture, features or symbol table differ.
void interpolate_toward_base(AcousticModelFiles& model, const AcousticModelFiles& base,
                             const MixShares& shares);

}  // namespace tts::acoustic
