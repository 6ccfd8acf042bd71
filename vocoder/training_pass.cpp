#include "tts/vocoder/training_pass.h"

#include "tts/kernels/ops/backends.h"
#include "tts/vocoder/teacher_forced.h"

namespace tts::vocoder {

std::unique_ptr<TrainingPass> make_training_pass(const WaveNetWeights& weights,
                                                 const kernels::DeviceChoice& device) {
  return std::make_unique<TeacherForcedPass>(weights, kernels::backend_for(device),
                                             device.precision);
}

}  // namespace tts::vocoder
