// The WaveNet's conditioning projection: what every sampler (the CPU's and the GPU's) computes for
// an utterance's frames as they come (all of them, or the first and then the rest), off the serial
// path, before the samples that need them.
#pragma once

#include "tts/kernels/tensor.h"
#include "tts/vocoder/weights.h"

namespace tts::vocoder {

// Every layer's conditioning input for every frame of `mel` (mel_channels × frames, frames ≥ 2):
// L·2R × frames, the gate biases folded in. Throws std::invalid_argument for a mel of the wrong
// channel count or fewer than 2 frames.
kernels::Matrix project_conditioning(const WaveNetWeights& weights, const kernels::Matrix& mel);

// The same for any number of frames (those that follow a stream's first ones): each frame is
// projected on its own, so a frame's column is the same whichever frames it comes with.
kernels::Matrix project_conditioning_frames(const WaveNetWeights& weights,
                                            const kernels::Matrix& mel);

}  // namespace tts::vocoder
