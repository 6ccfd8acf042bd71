// Element-wise nonlinearities: the gated tanh·sigmoid unit of WaveNet and the ReLUs of its head.
#pragma once

#include "tts/kernels/tensor.h"

namespace tts::kernels {

// z has 2R rows: the first R are the filter (tanh) half, the last R the gate (sigmoid) half.
// gated = tanh(z_filter) ⊙ sigmoid(z_gate). `tanh_out` and `sigmoid_out` (R rows, may be null-sized
// when not training) keep the activations that the backward pass needs.
void gate_forward(ConstMatrixRef z, MatrixRef gated, MatrixRef tanh_out, MatrixRef sigmoid_out);

// The same for one time step, without keeping activations (incremental sampling), given the two
// halves separately so a thread can gate just its own channels.
void gate_forward_step(ConstVectorRef z_filter, ConstVectorRef z_gate, VectorRef gated);

// dz (2R rows) from d(gated) and the kept activations.
void gate_backward(ConstMatrixRef d_gated, ConstMatrixRef tanh_out, ConstMatrixRef sigmoid_out,
                   MatrixRef dz);

// y = max(x, 0); in place allowed.
void relu_forward(ConstMatrixRef x, MatrixRef y);
// dx = dy where y > 0, else 0 (y is the forward output).
void relu_backward(ConstMatrixRef dy, ConstMatrixRef y, MatrixRef dx);

}  // namespace tts::kernels
