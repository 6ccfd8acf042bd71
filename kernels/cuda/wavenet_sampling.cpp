// Host side of the persistent WaveNet sampling kernel: uploads the weights in the kernel's layout,
// keeps each stream's queues, conditioning and position on the device, and launches.
#include "tts/kernels/cuda/wavenet_sampling.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda_check.h"
#include "device_buffer.h"
#include "tts/kernels/cuda/wavenet_sampling_shape.h"
#include "wavenet_sampling_kernel.h"

namespace tts::kernels::cuda {

using detail::DeviceBuffer;

static_assert(detail::kMaxSamplingLayers == kSamplingMaxLayers,
              "the kernels' layer tables and wavenet_sampling_shape.h must agree");

namespace {

// Appends the column-major rows × cols matrix `m` to `out` in row-major order.
void append_row_major(std::vector<float>& out, const float* m, int rows, int cols) {
  if (!m) throw std::invalid_argument("wavenet sampling: a weight tensor is missing");
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out.push_back(m[r + static_cast<std::size_t>(c) * rows]);
}

DeviceBuffer<float> upload(const std::vector<float>& host) {
  DeviceBuffer<float> buffer(host.size());
  buffer.upload(host.data(), host.size());
  return buffer;
}

}  // namespace

struct WaveNetSamplingModel::Device {
  detail::WaveNetSamplingParams shape;  // sizes, dilations, queue offsets and weight pointers
  DeviceBuffer<float> embedding, dilated, residual_weight, residual_bias, skip_weight, skip_bias,
      head_hidden, head_hidden_bias, head_output, head_output_bias;
};

WaveNetSamplingModel::WaveNetSamplingModel(const WaveNetSamplingWeights& w)
    : device_(std::make_unique<Device>()) {
  const int L = w.layers, R = w.residual, S = w.skip, A = w.classes;
  if (w.hop < 1) throw std::invalid_argument("wavenet sampling: hop must be positive");
  {
    int device = 0, shared_limit = 0;
    TTS_CUDA_CHECK(cudaGetDevice(&device));
    TTS_CUDA_CHECK(
        cudaDeviceGetAttribute(&shared_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const std::string refusal =
        wavenet_sampling_refusal({L, R, S, A}, static_cast<std::size_t>(shared_limit));
    if (!refusal.empty()) throw std::invalid_argument(refusal);
  }
  if (R != wavenet_sampling_kernel_residual(R))
    throw std::invalid_argument(
        "wavenet sampling: the kernels are built for 16, 32 or 64 residual channels, not " +
        std::to_string(R) + " (tts::vocoder::pad_for_cuda_sampling adds zero channels)");
  if (!detail::wavenet_sampling_supports(R, S) ||
      detail::wavenet_sampling_rows_supports(R, S) != wavenet_sampling_uses_split_rows(R))
    throw std::runtime_error(
        "wavenet sampling: the kernels disagree with wavenet_sampling_shape.h");
  if (static_cast<int>(w.dilations.size()) != L || static_cast<int>(w.dilated.size()) != L ||
      static_cast<int>(w.residual_weight.size()) != L - 1 ||
      static_cast<int>(w.residual_bias.size()) != L - 1)
    throw std::invalid_argument(
        "wavenet sampling: need one dilation and dilated matrix per layer "
        "and one residual matrix and bias per layer but the last");
  detail::WaveNetSamplingParams& p = device_->shape;
  p.layers = L;
  p.residual = R;
  p.skip = S;
  p.classes = A;
  p.hop = w.hop;
  long long offset = 0;
  for (int i = 0; i < L; ++i) {
    if (w.dilations[i] < 1) throw std::invalid_argument("wavenet sampling: dilation below 1");
    p.dilation[i] = w.dilations[i];
    p.queue_offset[i] = offset;
    offset += static_cast<long long>(w.dilations[i]) * R;
  }
  p.queue_stride = offset;

  std::vector<float> host;
  auto put = [&](DeviceBuffer<float>& buffer, auto fill) {
    host.clear();
    fill();
    buffer = upload(host);
  };
  put(device_->embedding, [&] {  // stays column-major: a class's column is contiguous
    if (!w.embedding) throw std::invalid_argument("wavenet sampling: embedding missing");
    host.assign(w.embedding, w.embedding + static_cast<std::size_t>(R) * A);
  });
  put(device_->dilated, [&] {
    for (const float* m : w.dilated) append_row_major(host, m, 2 * R, 2 * R);
  });
  put(device_->residual_weight, [&] {
    for (const float* m : w.residual_weight) append_row_major(host, m, R, R);
  });
  put(device_->residual_bias, [&] {
    for (const float* b : w.residual_bias) append_row_major(host, b, R, 1);
  });
  put(device_->skip_weight, [&] { append_row_major(host, w.skip_weight, S, L * R); });
  put(device_->skip_bias, [&] { append_row_major(host, w.skip_bias, S, 1); });
  put(device_->head_hidden, [&] { append_row_major(host, w.head_hidden, S, S); });
  put(device_->head_hidden_bias, [&] { append_row_major(host, w.head_hidden_bias, S, 1); });
  put(device_->head_output, [&] { append_row_major(host, w.head_output, A, S); });
  put(device_->head_output_bias, [&] { append_row_major(host, w.head_output_bias, A, 1); });
  p.embedding = device_->embedding.data();
  p.dilated = device_->dilated.data();
  p.residual_weight = device_->residual_weight.data();
  p.residual_bias = device_->residual_bias.data();
  p.skip_weight = device_->skip_weight.data();
  p.skip_bias = device_->skip_bias.data();
  p.head_hidden = device_->head_hidden.data();
  p.head_hidden_bias = device_->head_hidden_bias.data();
  p.head_output = device_->head_output.data();
  p.head_output_bias = device_->head_output_bias.data();
}

WaveNetSamplingModel::~WaveNetSamplingModel() = default;

struct WaveNetSamplingBatch::State {
  DeviceBuffer<float> queues;
  std::vector<DeviceBuffer<float>> conditioning;  // per stream
  std::vector<const float*> conditioning_pointers;
  DeviceBuffer<const float*> conditioning_table;
  std::vector<long long> position, total, limit;
  std::vector<std::int32_t> previous;
  DeviceBuffer<long long> position_device, limit_device;
  DeviceBuffer<std::int32_t> previous_device, out;
  DeviceBuffer<float> uniforms, logits;
  cudaEvent_t begin = nullptr, end = nullptr;
  ~State() {
    if (begin) cudaEventDestroy(begin);
    if (end) cudaEventDestroy(end);
  }
};

WaveNetSamplingBatch::WaveNetSamplingBatch(const WaveNetSamplingModel& model, int streams,
                                           int streams_per_block)
    : model_(model), streams_(streams), state_(std::make_unique<State>()) {
  if (streams < 1) throw std::invalid_argument("wavenet sampling: need at least one stream");
  const bool chosen = streams_per_block == 0;
  int device = 0, limit = 0;
  TTS_CUDA_CHECK(cudaGetDevice(&device));
  TTS_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const detail::WaveNetSamplingParams& shape = model.device().shape;
  split_rows_ = detail::wavenet_sampling_rows_supports(shape.residual, shape.skip);
  const int floats = detail::wavenet_sampling_shared_floats(shape.layers, shape.residual,
                                                            shape.skip, shape.classes);
  // Shared memory of a block of `per_block` streams (the head's weights come on top when they fit).
  auto block_bytes = [&](int per_block) {
    return sizeof(float) * (static_cast<std::size_t>(per_block) * floats +
                            (split_rows_ ? detail::wavenet_sampling_bias_floats(shape) : 0));
  };
  if (chosen) {
    int processors = 1;
    TTS_CUDA_CHECK(cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device));
    streams_per_block = 1;
    while (streams_per_block < 4 && streams > 2 * processors * streams_per_block &&
           block_bytes(2 * streams_per_block) <= static_cast<std::size_t>(limit))
      streams_per_block *= 2;
  }
  if (streams_per_block != 1 && streams_per_block != 2 && streams_per_block != 4)
    throw std::invalid_argument("wavenet sampling: streams_per_block must be 1, 2 or 4, not " +
                                std::to_string(streams_per_block));
  streams_per_block_ = streams_per_block;
  {
    const std::size_t bytes = block_bytes(streams_per_block);
    // The split-row kernel keeps the head's weights in shared memory when they fit beside.
    head_in_shared_ =
        split_rows_ && bytes + sizeof(float) * detail::wavenet_sampling_head_floats(shape) <=
                           static_cast<std::size_t>(limit);
    if (bytes > static_cast<std::size_t>(limit))
      throw std::invalid_argument("wavenet sampling: " + std::to_string(streams_per_block) +
                                  " streams per block need " + std::to_string(bytes) +
                                  " bytes of shared memory, the device allows " +
                                  std::to_string(limit) + "; use fewer streams per block");
  }
  State& st = *state_;
  const long long stride = model.device().shape.queue_stride;
  st.queues = DeviceBuffer<float>(static_cast<std::size_t>(stride) * streams);
  TTS_CUDA_CHECK(cudaMemset(st.queues.data(), 0, st.queues.size() * sizeof(float)));
  st.conditioning.resize(streams);
  st.conditioning_pointers.assign(streams, nullptr);
  st.conditioning_table = DeviceBuffer<const float*>(streams);
  st.position.assign(streams, 0);
  st.total.assign(streams, 0);
  st.limit.assign(streams, 0);
  st.previous.assign(streams, 0);
  st.position_device = DeviceBuffer<long long>(streams);
  st.limit_device = DeviceBuffer<long long>(streams);
  st.previous_device = DeviceBuffer<std::int32_t>(streams);
  TTS_CUDA_CHECK(cudaEventCreate(&st.begin));
  TTS_CUDA_CHECK(cudaEventCreate(&st.end));
}

WaveNetSamplingBatch::~WaveNetSamplingBatch() = default;

std::size_t WaveNetSamplingBatch::remaining(int stream) const {
  if (stream < 0 || stream >= streams_)
    throw std::invalid_argument("wavenet sampling: no stream " + std::to_string(stream));
  return static_cast<std::size_t>(state_->total[stream] - state_->position[stream]);
}

void WaveNetSamplingBatch::start(int stream, const float* conditioning, int frames,
                                 std::size_t total_samples, int32_t previous_class) {
  const detail::WaveNetSamplingParams& shape = model_.device().shape;
  if (stream < 0 || stream >= streams_)
    throw std::invalid_argument("wavenet sampling: no stream " + std::to_string(stream) + " of " +
                                std::to_string(streams_));
  if (frames < 2) throw std::invalid_argument("wavenet sampling: need at least 2 frames");
  if (total_samples > static_cast<std::size_t>(frames - 1) * shape.hop)
    throw std::invalid_argument("wavenet sampling: " + std::to_string(total_samples) +
                                " samples need more than " + std::to_string(frames) + " frames");
  if (total_samples >= (std::size_t{1} << 31))
    throw std::invalid_argument("wavenet sampling: an utterance must have under 2^31 samples");
  if (previous_class < 0 || previous_class >= shape.classes)
    throw std::invalid_argument("wavenet sampling: previous class out of range");
  State& st = *state_;
  const std::size_t floats = static_cast<std::size_t>(shape.layers) * 2 * shape.residual * frames;
  if (st.conditioning[stream].size() < floats)
    st.conditioning[stream] = DeviceBuffer<float>(floats);
  st.conditioning[stream].upload(conditioning, floats);
  st.conditioning_pointers[stream] = st.conditioning[stream].data();
  TTS_CUDA_CHECK(
      cudaMemset(st.queues.data() + static_cast<std::size_t>(shape.queue_stride) * stream, 0,
                 static_cast<std::size_t>(shape.queue_stride) * sizeof(float)));
  st.position[stream] = 0;
  st.total[stream] = static_cast<long long>(total_samples);
  st.previous[stream] = previous_class;
}

std::vector<std::size_t> WaveNetSamplingBatch::generate(std::size_t count, const float* uniforms,
                                                        int32_t* out, float temperature,
                                                        float* logits_out,
                                                        const std::size_t* limits) {
  State& st = *state_;
  detail::WaveNetSamplingParams p = model_.device().shape;
  std::vector<std::size_t> made(streams_, 0);
  long long most = 0;
  for (int s = 0; s < streams_; ++s) {
    const long long asked = static_cast<long long>(limits ? std::min(limits[s], count) : count);
    st.limit[s] = std::min(asked, st.total[s] - st.position[s]);
    made[s] = static_cast<std::size_t>(st.limit[s]);
    most = std::max(most, st.limit[s]);
  }
  last_kernel_seconds_ = 0.0;
  if (most == 0) return made;
  const std::size_t cells = count * streams_;
  if (st.uniforms.size() < cells) {
    st.uniforms = DeviceBuffer<float>(cells);
    st.out = DeviceBuffer<std::int32_t>(cells);
  }
  if (logits_out && st.logits.size() < cells * p.classes)
    st.logits = DeviceBuffer<float>(cells * p.classes);
  st.uniforms.upload(uniforms, cells);
  st.conditioning_table.upload(st.conditioning_pointers.data(), streams_);
  st.position_device.upload(st.position.data(), streams_);
  st.limit_device.upload(st.limit.data(), streams_);
  st.previous_device.upload(st.previous.data(), streams_);

  p.streams = streams_;
  p.count = static_cast<long long>(count);
  p.queues = st.queues.data();
  p.conditioning = st.conditioning_table.data();
  p.position = st.position_device.data();
  p.limit = st.limit_device.data();
  p.previous_class = st.previous_device.data();
  p.uniforms = st.uniforms.data();
  p.out = st.out.data();
  p.logits_out = logits_out ? st.logits.data() : nullptr;
  p.temperature = temperature;
  p.head_in_shared = head_in_shared_;
  TTS_CUDA_CHECK(cudaEventRecord(st.begin));
  if (split_rows_)
    detail::launch_wavenet_sampling_rows(p, streams_per_block_, nullptr);
  else
    detail::launch_wavenet_sampling(p, streams_per_block_, nullptr);
  TTS_CUDA_CHECK(cudaEventRecord(st.end));
  TTS_CUDA_CHECK(cudaEventSynchronize(st.end));
  float ms = 0.0f;
  TTS_CUDA_CHECK(cudaEventElapsedTime(&ms, st.begin, st.end));
  last_kernel_seconds_ = ms * 1e-3;

  st.out.download(out, cells);
  if (logits_out) st.logits.download(logits_out, cells * p.classes);
  st.previous_device.download(st.previous.data(), streams_);
  for (int s = 0; s < streams_; ++s) st.position[s] += st.limit[s];
  return made;
}

}  // namespace tts::kernels::cuda
