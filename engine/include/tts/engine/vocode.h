// Mel frames to audio with a trained vocoder, and the log-mel distance that scores copy-synthesis.
#pragma once

#include <functional>
#include <vector>

#include "tts/kernels/compact_matrix.h"
#include "tts/kernels/tensor.h"
#include "tts/vocoder/model_files.h"
#include "tts/vocoder/sampler_interface.h"

namespace tts::engine {

// Receives each chunk of audio as it is made; return false to stop early.
using AudioChunkCallback = std::function<bool(const float* samples, std::size_t count)>;

// Samples the whole utterance for `mel` (n_mels × frames) on the CPU, its weights in `weights`
// (vocoder::SamplerSource), calling `on_chunk` every `chunk` samples. Returns all the audio made.
std::vector<float> vocode(const vocoder::VocoderModel& model, const kernels::Matrix& mel,
                          const vocoder::SamplerOptions& options,
                          const AudioChunkCallback& on_chunk = nullptr, std::size_t chunk = 4000,
                          kernels::WeightPrecision weights = kernels::WeightPrecision::kFp32);

// Mean absolute difference of two log-mel spectrograms (natural-log units) over the frames they
// share; 0 for identical audio. Frames beyond the shorter one are ignored.
double log_mel_distance(const kernels::Matrix& a, const kernels::Matrix& b);

}  // namespace tts::engine
