// Shared by the CUDA training-pass tests (cuda_vocoder_training_test.cpp,
// cuda_acoustic_training_test.cpp): weights nudged off their initialisation so every gradient path
// carries signal, and the normalised error that compares a GPU result with the CPU's.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "tts/kernels/parameter_set.h"

namespace tts::testing {

// Adds N(0, 0.05²) noise to every parameter (biases start at zero otherwise).
inline void perturb(kernels::ParameterSet& parameters, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  float* v = parameters.data();
  for (std::size_t k = 0; k < parameters.size(); ++k) v[k] += normal(rng);
}

// ‖gpu − cpu‖ / ‖cpu‖ over n values, with ‖cpu‖ in *cpu_norm (a caller asserts it is > 0: a sign
// flip then gives 2 and an all-zero result 1, so neither passes a small bound); infinity when
// ‖cpu‖ = 0.
inline double normalised_error(const float* gpu, const float* cpu, std::size_t n,
                               double* cpu_norm) {
  double diff2 = 0.0, norm2 = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    diff2 += (double(gpu[k]) - cpu[k]) * (double(gpu[k]) - cpu[k]);
    norm2 += double(cpu[k]) * cpu[k];
  }
  *cpu_norm = std::sqrt(norm2);
  return norm2 > 0.0 ? std::sqrt(diff2 / norm2) : INFINITY;
}

// After the same optimiser steps on both devices: the losses agree step by step (1e-4 relative) and
// the weights within 1e-3 normalised (Adam divides each gradient by its own running size, so an
// element whose gradient is near zero can step either way on rounding alone; a wrong gradient
// tensor moves far more than this); and the steps moved the weights away from `initial`, so the
// comparison is not between two initialisations.
inline void expect_steps_follow_cpu(const std::vector<double>& cpu_losses,
                                    const std::vector<double>& gpu_losses,
                                    const kernels::ParameterSet& cpu,
                                    const kernels::ParameterSet& gpu,
                                    const kernels::ParameterSet& initial) {
  ASSERT_EQ(gpu_losses.size(), cpu_losses.size());
  for (std::size_t k = 0; k < cpu_losses.size(); ++k)
    EXPECT_NEAR(gpu_losses[k], cpu_losses[k], 1e-4 * cpu_losses[k]) << "step " << k + 1;
  double norm = 0.0;
  const double error = normalised_error(gpu.data(), cpu.data(), cpu.size(), &norm);
  ASSERT_GT(norm, 0.0);
  EXPECT_LT(error, 1e-3) << "weights after " << cpu_losses.size() << " steps";
  EXPECT_GT(normalised_error(initial.data(), cpu.data(), cpu.size(), &norm), 1e-3)
      << "the steps did not change the weights";
}

}  // namespace tts::testing
