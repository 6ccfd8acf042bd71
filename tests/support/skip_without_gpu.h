// For the CUDA tests: skip, saying why, on a machine without a visible GPU (CI, the development
// VM), so that they compile and run everywhere and pass or fail only where a GPU is present.
#pragma once

#include <gtest/gtest.h>

#include "tts/kernels/device.h"

#define TTS_SKIP_WITHOUT_GPU()                                                           \
  do {                                                                                   \
    if (tts::kernels::cuda_device_count() == 0)                                          \
      GTEST_SKIP() << "no CUDA device visible: the CUDA tests need a GPU (docs/gpu.md)"; \
  } while (0)
