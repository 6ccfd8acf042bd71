#include "tts/vocoder/sampler_interface.h"

#include <stdexcept>

namespace tts::vocoder {

void Sampler::extend(int, const kernels::Matrix&) {
  throw std::logic_error("this sampler starts on whole sentences; it cannot take frames in parts");
}

}  // namespace tts::vocoder
