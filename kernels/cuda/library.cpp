// The entry point of libtts_cuda.so: the CudaLibrary (tts/kernels/cuda_library.h) that the engine
// loads on its first use of a GPU, over this folder's backend and sampling kernels.
#include <cstdio>
#include <exception>
#include <memory>
#include <utility>

#include "cuda_backend.h"
#include "device_query.h"
#include "tts/kernels/cuda/wavenet_sampling.h"
#include "tts/kernels/cuda_library.h"

namespace tts::kernels::cuda {

namespace {

struct UploadedModel final : SamplingModel {
  explicit UploadedModel(const WaveNetSamplingWeights& weights) : model(weights) {}
  WaveNetSamplingModel model;
};

class Batch final : public SamplingBatch {
 public:
  Batch(std::shared_ptr<const UploadedModel> model, int streams, int streams_per_block)
      : model_(std::move(model)), batch_(model_->model, streams, streams_per_block) {}
  void start(int stream, const float* conditioning, int frames, std::size_t total_samples,
             std::int32_t previous_class) override {
    batch_.start(stream, conditioning, frames, total_samples, previous_class);
  }
  std::vector<std::size_t> generate(std::size_t count, const float* uniforms, std::int32_t* out,
                                    float temperature, float* logits_out,
                                    const std::size_t* limits) override {
    return batch_.generate(count, uniforms, out, temperature, logits_out, limits);
  }
  int streams() const override { return batch_.streams(); }
  const char* kernel_name() const override { return batch_.kernel_name(); }
  std::size_t remaining(int stream) const override { return batch_.remaining(stream); }
  double last_kernel_seconds() const override { return batch_.last_kernel_seconds(); }

 private:
  std::shared_ptr<const UploadedModel> model_;  // declared first: the batch refers to it
  WaveNetSamplingBatch batch_;
};

class Library final : public CudaLibrary {
 public:
  int visible_device_count() override { return cuda::visible_device_count(); }
  Backend& backend() override { return cuda::backend(); }
  std::shared_ptr<const SamplingModel> upload_sampling_model(
      const WaveNetSamplingWeights& weights) override {
    return std::make_shared<const UploadedModel>(weights);
  }
  std::unique_ptr<SamplingBatch> make_sampling_batch(std::shared_ptr<const SamplingModel> model,
                                                     int streams, int streams_per_block) override {
    auto uploaded = std::dynamic_pointer_cast<const UploadedModel>(model);
    if (!uploaded)
      throw std::invalid_argument(
          "make_sampling_batch: the model was not uploaded by this CUDA library");
    return std::make_unique<Batch>(std::move(uploaded), streams, streams_per_block);
  }
};

}  // namespace

}  // namespace tts::kernels::cuda

// The one symbol the library exports (its version script hides the rest).
extern "C" __attribute__((visibility("default"))) tts::kernels::CudaLibrary* tts_cuda_library_v1(
    char* error, std::size_t error_size) {
  try {
    static tts::kernels::cuda::Library library;
    return &library;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
  } catch (...) {
    std::snprintf(error, error_size, "unknown error");
  }
  return nullptr;
}
