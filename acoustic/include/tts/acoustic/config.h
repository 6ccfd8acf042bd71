// Hyper-parameters of the FastSpeech-style acoustic model, read from and written to JSON.
#pragma once

#include <nlohmann/json.hpp>

namespace tts::acoustic {

struct AcousticConfig {
  int symbols = 0;         // rows of the phoneme embedding (the symbol table's size)
  int channels = 128;      // encoder width (embedding size)
  int encoder_blocks = 3;  // conv + ReLU + residual + layer norm blocks
  int encoder_kernel = 5;
  int duration_channels = 128;  // the duration predictor: 2 conv blocks, then a linear to 1
  int duration_kernel = 3;
  int decoder_channels = 128;
  int decoder_blocks = 4;
  int decoder_kernel = 5;
  int n_mels = 80;  // must equal the features' n_mels
  // Prior means per token for alignment search: a token's frames are split, in order, between
  // this many sub-segments with means of their own (the states of an HMM aligner), so a diphthong
  // or a stop's closure and burst need not share one mean. Training only; synthesis ignores it.
  // 3 states put 65% of flite's word boundaries within 2 frames, 1 state 47%
  // (docs/acoustic-model.md). A file without the field has 1 (it predates the field).
  int alignment_states = 3;
  // The variance adaptor (FastSpeech 2 / FastPitch): predictors of each token's pitch and energy
  // from the encoder, and embeddings of the frame-level pitch and energy added to the decoder's
  // input. Without it (acoustic files of format_version 2 predate it) the decoder sees the text
  // alone and synthesis cannot shift the pitch.
  bool pitch_energy = true;
  int variance_channels = 128;  // each predictor: 2 conv blocks of this width, then a linear to 1
  int variance_kernel = 3;
  // Buckets of each embedding table: pitch over log F0 from 50 to 800 Hz (4 octaves: 128 buckets
  // are 37.5 cents apart), energy over -4..4 standard deviations; a value between two bucket
  // centres mixes their columns linearly.
  int variance_bins = 128;
  // The model works on normalised log-mels (mel - mel_mean) / mel_std; the trainer measures them
  // on the training corpus and synthesis undoes them.
  float mel_mean = 0.0f;
  float mel_std = 1.0f;
  // Corpus statistics for the variance adaptor, measured by the trainer like mel_mean: natural
  // log of F0 in Hz over the voiced frames, and log energy (kernels/mel.h) over every frame. The
  // predictors work on (value - mean) / std.
  float pitch_mean = 5.3f;  // about 200 Hz
  float pitch_std = 0.2f;
  float energy_mean = 0.0f;
  float energy_std = 1.0f;
  // Synthesis stretches each utterance's predicted token pitch away from its mean by this factor:
  // a predictor trained on squared error regresses toward the mean, and this restores the spread
  // the recordings' token targets have (measured on the training corpus by `tts train
  // calibrate-pitch`; 1 leaves the predictions as they are).
  float pitch_spread = 1.0f;
  // Speakers the model was trained on together (more than one: a learned vector per speaker is
  // added to every token's encoder state, so the predictors and the decoder know whose voice to
  // draw), and the one synthesis speaks as. Training other voices beside a voice's own keeps the
  // model speaking the English they teach it instead of forgetting it in fine-tuning
  // (docs/acoustic-model.md). Files of format_version 2 and 3 have one speaker.
  int speakers = 1;
  int speaker = 0;

  // Throws std::invalid_argument naming the field when a value is out of range.
  void validate() const;
};

void to_json(nlohmann::json& j, const AcousticConfig& c);
// The architecture alone, for comparing a model with the one it started from or is mixed with:
// the config's JSON without the corpus statistics, the pitch calibration and the synthesis
// speaker, without the variance adaptor's fields when the config has no adaptor or
// `without_variance` is set, and without the speaker count when `without_speakers` is set.
nlohmann::json architecture_json(const AcousticConfig& c, bool without_variance = false,
                                 bool without_speakers = false);
// Missing fields keep their defaults, except alignment_states, which is 1 when missing (files
// written before it existed; pitch_energy's readers of older files clear it: model_files.cpp);
// unknown fields and wrong types are rejected (naming them).
void from_json(const nlohmann::json& j, AcousticConfig& c);

}  // namespace tts::acoustic
