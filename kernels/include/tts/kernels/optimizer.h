// Optimiser maths over flat parameter buffers: Adam, gradient clipping, weight averaging.
#pragma once

#include <cstddef>

namespace tts::kernels {

struct AdamSettings {
  float learning_rate = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-8f;
  float weight_decay = 0.0f;  // decoupled (AdamW)
};

// One Adam step on n parameters; `step` counts from 1 (for bias correction).
void adam_step(float* params, const float* grads, float* first_moment, float* second_moment,
               std::size_t n, long step, const AdamSettings& settings);

// Euclidean norm of a flat buffer, accumulated in double.
double l2_norm(const float* x, std::size_t n);

// x *= factor.
void scale(float* x, std::size_t n, float factor);

// average = decay·average + (1 - decay)·params (exponential moving average of weights).
void ema_update(float* average, const float* params, std::size_t n, float decay);

// True when every value is finite.
bool all_finite(const float* x, std::size_t n);

}  // namespace tts::kernels
