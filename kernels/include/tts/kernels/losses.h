// Regression losses of the acoustic model, each returning the mean over all elements and writing
// `scale` times its gradient with respect to `prediction` into `d_prediction` (overwritten).
#pragma once

#include "tts/kernels/tensor.h"

namespace tts::kernels {

// mean((prediction - target)²)
double mse_loss(ConstMatrixRef prediction, ConstMatrixRef target, MatrixRef d_prediction,
                float scale = 1.0f);

// mean(|prediction - target|); the gradient at a tie is 0.
double l1_loss(ConstMatrixRef prediction, ConstMatrixRef target, MatrixRef d_prediction,
               float scale = 1.0f);

}  // namespace tts::kernels
