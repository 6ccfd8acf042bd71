// Softmax over classes: the training loss and the sampling of the next μ-law class.
#pragma once

#include <cstdint>
#include <vector>

#include "tts/kernels/tensor.h"

namespace tts::kernels {

// Mean cross-entropy of `logits` (classes × N) against `targets` (N class indices) in nats.
// When d_logits is non-empty it receives the gradient of the mean loss: (softmax - onehot) / N.
double softmax_cross_entropy(ConstMatrixRef logits, const std::vector<int32_t>& targets,
                             MatrixRef d_logits);

// Samples a class from softmax(logits / temperature) by inverting its CDF at `uniform` in [0, 1).
// Temperature 0 picks the arg-max. `scratch` must hold logits.size() floats. Injecting the uniform
// numbers is what lets two implementations be compared sample for sample.
int32_t softmax_sample(ConstVectorRef logits, float temperature, float uniform, VectorRef scratch);

}  // namespace tts::kernels
