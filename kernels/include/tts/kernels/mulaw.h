// μ-law companding between audio in [-1, 1] and integer classes 0..classes-1.
#pragma once

#include <cstdint>
#include <vector>

namespace tts::kernels {

// Class of one sample (input clipped to [-1, 1]); mu = classes - 1.
int32_t mulaw_encode(float sample, int classes = 256);
// Centre value in [-1, 1] of a class.
float mulaw_decode(int32_t cls, int classes = 256);

std::vector<int32_t> mulaw_encode(const std::vector<float>& samples, int classes = 256);
std::vector<float> mulaw_decode(const std::vector<int32_t>& classes_in, int classes = 256);

}  // namespace tts::kernels
