// The one device type (tts/kernels/device.h) and the CUDA library loaded on first use
// (tts/kernels/cuda_library.h): names parse both ways, unusable choices are refused saying why, and
// a CPU synthesis of a CUDA build never maps a CUDA library into the process.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "temp_folder.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice_random.h"
#include "tts/kernels/cuda_library.h"
#include "tts/kernels/device.h"

using testing::HasSubstr;
using tts::kernels::Device;
using tts::kernels::GemmPrecision;

namespace {

// The shared objects this process has mapped whose path contains `part`.
bool mapped(const std::string& part) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(DeviceChoice, NamesParseBothWaysAndUnknownOnesAreRefusedNamingThem) {
  for (const auto& [name, device] : tts::kernels::device_names()) {
    EXPECT_EQ(tts::kernels::parse_device(name), device);
    EXPECT_EQ(tts::kernels::to_string(device), name);
  }
  for (const auto& [name, precision] : tts::kernels::precision_names()) {
    EXPECT_EQ(tts::kernels::parse_precision(name), precision);
    EXPECT_EQ(tts::kernels::to_string(precision), name);
  }
  EXPECT_EQ(tts::kernels::device_names().size(), 2u);
  try {
    tts::kernels::parse_device("tpu");
    FAIL() << "tpu was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'tpu'"));
    EXPECT_THAT(e.what(), HasSubstr("cpu, cuda"));
  }
  EXPECT_THROW(tts::kernels::parse_precision("fp8"), std::invalid_argument);
}

TEST(DeviceChoice, TheCpuComputesInFp32Only) {
  EXPECT_NO_THROW(tts::kernels::check_device_choice({Device::kCpu, GemmPrecision::kFp32}));
  try {
    tts::kernels::check_device_choice({Device::kCpu, GemmPrecision::kBf16});
    FAIL() << "bf16 on the CPU was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("bf16"));
  }
}

// One test, in this order, because loading cannot be undone in a process: first a whole CPU
// synthesis, which must not load CUDA; then the first ask for the GPU, which loads the library
// (in a CUDA build) and either finds a device or refuses saying why.
TEST(DeviceChoice, CudaIsLoadedOnlyWhenAskedFor) {
  {
    const tts::testing_support::TempFolder root;
    tts::engine::create_random_voice(root / "voice", {});
    auto voice = tts::engine::Voice::load(root / "voice");
    tts::engine::SynthesisStream stream(voice);
    tts::engine::SynthesisOptions options;
    options.rate = 6.0f;
    stream.start("Hello there.", options);
    tts::engine::AudioChunk chunk;
    std::size_t samples = 0;
    while (stream.next(chunk)) samples += chunk.samples.size();
    EXPECT_GT(samples, 0u);
  }
  EXPECT_FALSE(tts::kernels::cuda_library_loaded());
  for (const char* library : {"libtts_cuda", "libcublas", "libcudnn", "libcudart"})
    EXPECT_FALSE(mapped(library)) << library << " was mapped by a CPU synthesis";
  EXPECT_THAT(tts::kernels::describe_backends(),
              HasSubstr(tts::kernels::cuda_backend_built() ? "built (" : "not built"));

  if (!tts::kernels::cuda_backend_built()) {
    EXPECT_THROW(tts::kernels::require_device(Device::kCuda), std::invalid_argument);
    EXPECT_EQ(tts::kernels::cuda_device_count(), 0);
    EXPECT_FALSE(tts::kernels::cuda_library_loaded());
    return;
  }
  const int devices = tts::kernels::cuda_device_count();  // the first ask: loads the library
  EXPECT_TRUE(tts::kernels::cuda_library_loaded());
  EXPECT_TRUE(mapped("libtts_cuda.so"));
  EXPECT_THAT(tts::kernels::describe_backends(), HasSubstr("; loaded"));
  if (devices > 0) {
    EXPECT_NO_THROW(tts::kernels::require_device(Device::kCuda));
  } else {
    try {
      tts::kernels::require_device(Device::kCuda);
      FAIL() << "cuda was accepted without a visible device";
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("no CUDA device"));
    }
  }
}
