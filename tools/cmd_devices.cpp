// `tts devices`: the compute devices this build and machine can use. Unlike `tts --version`,
// which must not load CUDA, this loads the CUDA backend to ask it, and says why when it cannot.
#include <iostream>

#include "commands.h"
#include "tts/kernels/cpu_isa.h"
#include "tts/kernels/cuda_library.h"
#include "tts/kernels/device.h"
#include "tts/kernels/linear_algebra.h"

namespace tts::cli {

namespace {

int run_devices() {
  std::cout << "cpu: " << kernels::cpu_kernel_isa() << "\n";
  if (!kernels::cuda_backend_built()) {
    std::cout << "cuda: not built (configure with -DTTS_CUDA=ON on a machine with the CUDA "
                 "toolkit and cuDNN)\n";
    return kExitOk;
  }
  try {
    kernels::require_device(kernels::Device::kCuda);
    std::cout << "cuda: " << kernels::cuda_library().visible_device_count() << " device(s); "
              << kernels::cuda_library().backend().describe() << "\n";
  } catch (const std::exception& e) {
    std::cout << "cuda: unavailable: " << e.what() << "\n";
  }
  return kExitOk;
}

}  // namespace

void register_devices(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "devices", "List the compute devices that --device can name here (loads the CUDA backend)");
  cmd->callback([&exit_code] { exit_code = run_devices(); });
}

}  // namespace tts::cli
