#include "tts/train/gradient_reduction.h"

#include "tts/kernels/optimizer.h"

namespace tts::train {

void reduce_gradients(Communicator& c, kernels::ParameterSet& gradients, double* values,
                      std::size_t count, double divisor) {
  if (c.size() > 1) {
    c.sum(gradients.data(), gradients.size());
    c.sum(values, count);
  }
  if (divisor == 1.0) return;
  kernels::scale(gradients.data(), gradients.size(), static_cast<float>(1.0 / divisor));
  for (std::size_t i = 0; i < count; ++i) values[i] /= divisor;
}

}  // namespace tts::train
