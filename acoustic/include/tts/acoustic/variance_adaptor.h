// The variance adaptor of the acoustic model (FastSpeech 2 / FastPitch): from the encoder's output,
// one predictor per variance (pitch, energy) gives each token a normalised value; the decoder sees
// a frame-level contour of each through an embedding table of buckets, added to its input.
//
// Targets and contours, and why they differ in kind:
//   - the predictors learn per-token values (the mean of the token's frames, normalised by the
//     corpus statistics in the config), as FastPitch does: a token's value is a well-defined
//     target that a conv stack over tokens can predict, where a frame contour would need a
//     frame-level predictor after the length regulator;
//   - in training the decoder is conditioned on the recording's frame contour itself (log F0
//     carried through unvoiced frames, and log energy), so that it learns to place harmonics for
//     the F0 it is given frame by frame; at synthesis it gets the predicted token values
//     interpolated between token centres (tokens_to_frames).
#pragma once

#include <cstdint>
#include <vector>

#include "tts/acoustic/layers.h"
#include "tts/acoustic/weights.h"
#include "tts/kernels/tensor.h"

namespace tts::acoustic {

// The pitch embedding's buckets span log F0 from this to that (Hz); the energy embedding's span
// ±kEnergyBucketRange standard deviations.
inline constexpr float kPitchBucketLowHz = 50.0f;
inline constexpr float kPitchBucketHighHz = 800.0f;
inline constexpr float kEnergyBucketRange = 4.0f;

struct VariancePredictorActivations {
  explicit VariancePredictorActivations(kernels::Backend& backend)
      : predicted(backend), d_hidden(backend), d_in(backend) {}
  std::vector<ConvBlockActivations> blocks;
  std::vector<kernels::Buffer> outs;  // per block, V × P
  kernels::Buffer predicted;          // 1 × P, normalised token values
  kernels::Buffer d_hidden, d_in;     // backward scratch, V × P
};

// predicted = output(blocks(encoded)) on the context's backend; block i drops as dropouts[i] (none
// where it is missing).
void variance_predictor_forward(const LayerContext& c, const VarianceLayout& layout,
                                kernels::View encoded, const kernels::Lengths& lengths,
                                VariancePredictorActivations& a,
                                const std::vector<Dropout>& dropouts = {});

// Adds the predictor's parameter gradients to the context's and its input gradient to d_encoded.
void variance_predictor_backward(const LayerContext& c, const VarianceLayout& layout,
                                 const kernels::Lengths& lengths, VariancePredictorActivations& a,
                                 kernels::View d_predicted, kernels::View d_encoded,
                                 ConvBlockScratch& scratch);

// The frame contours of a batch, as the decoder's embeddings read them: pitch as absolute log F0
// (a NaN, an utterance without voiced frames, becomes config.pitch_mean) and energy normalised by
// the config's statistics. Also the normalised pitch (z) that the predictor's targets average.
struct FrameVariances {
  kernels::Matrix log_f0;    // 1 × F, absolute
  kernels::Matrix pitch_z;   // 1 × F, (log_f0 - pitch_mean) / pitch_std
  kernels::Matrix energy_z;  // 1 × F
};
FrameVariances frame_variances(const kernels::Matrix& log_f0, const kernels::Matrix& log_energy,
                               const AcousticConfig& config);

// 1 × frames: the natural log of each voiced frame's F0 (f0_hz > 0), carried across unvoiced
// frames by linear interpolation in log F0 between the voiced frames around them (the nearest one
// at the edges), as FastPitch and FastSpeech 2 do, so that the decoder's contour never jumps to a
// "no pitch" value inside a word; all NaN when no frame is voiced.
kernels::Matrix continuous_log_f0(const std::vector<float>& f0_hz);

// Each token's mean over its frames (durations tile the columns of `frames`), and a mask that is 1
// for tokens with at least one frame, 0 for tokens without (their mean is 0 and not trained on).
void token_means(const kernels::Matrix& frames, const std::vector<int>& durations,
                 kernels::Matrix& means, std::vector<float>& mask);

// Synthesis: token values spread over frames, linearly interpolated between the centres of the
// tokens that have frames (constant before the first centre and after the last).
void tokens_to_frames(const kernels::Matrix& token_values, const std::vector<int>& durations,
                      kernels::Matrix& frames);

// Synthesis: each token's value moved `spread` times as far from the mean of the tokens that have
// frames (tokens without frames keep their value).
kernels::Matrix spread_pitch(const kernels::Matrix& token_values, const std::vector<int>& durations,
                             float spread);

// Bucket coordinates of values for kernels::add_interpolated_columns over a table of `bins`
// columns spanning [low, high]: value v sits at (v - low) / (high - low) · (bins - 1), clamped to
// the table; index is the bucket below it and weight the share of the one above.
void bucket_coordinates(const kernels::Matrix& values, float low, float high, int bins,
                        std::vector<int32_t>& index, std::vector<float>& weight);

// Mean squared error over the tokens whose mask is 1 (0 when none is); d_predicted = scale ·
// its gradient. With `normaliser` > 0 the squared errors are divided by it instead of the mask's
// count (a micro-batch's share of a larger batch's mean: LossNormalisers in network.h).
double masked_mse(kernels::ConstMatrixRef predicted, const kernels::Matrix& target,
                  const std::vector<float>& mask, kernels::Matrix& d_predicted, float scale,
                  double normaliser = 0.0);

}  // namespace tts::acoustic
