#include "tts/vocoder/training_pass.h"

#include "tts/kernels/ops/backends.h"
#include "tts/vocoder/teacher_forced.h"

namespace tts::vocoder {

std::unique_ptr<TrainingPass> make_training_pass(const WaveNetWeights& weights,
                                                 const TrainingPassOptions& options) {
  return std::make_unique<TeacherForcedPass>(weights, kernels::training_backend(options),
                                             kernels::training_precision(options));
}

}  // namespace tts::vocoder
