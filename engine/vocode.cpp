#include "tts/engine/vocode.h"

#include <algorithm>
#include <stdexcept>

#include "tts/kernels/device.h"
#include "tts/vocoder/sample_codec.h"
#include "tts/vocoder/sampler_source.h"

namespace tts::engine {

std::vector<float> vocode(const vocoder::VocoderModel& model, const kernels::Matrix& mel,
                          const vocoder::SamplerOptions& options,
                          const AudioChunkCallback& on_chunk, std::size_t chunk,
                          kernels::WeightPrecision weights) {
  vocoder::SampleDecoder decoder(model.weights->config());
  const vocoder::SamplerSource source(*model.weights, weights);
  const std::unique_ptr<vocoder::Sampler> sampler =
      source.make_sampler(kernels::Device::kCpu, options);
  sampler->start(0, mel, options.seed);
  std::vector<float> audio;
  audio.reserve(sampler->total_samples(0));
  std::vector<int32_t> block(std::max<std::size_t>(1, chunk));
  for (;;) {
    const std::size_t made = sampler->generate({block.size()}, block.size(), block.data()).front();
    if (made == 0) break;
    const std::size_t before = audio.size();
    for (std::size_t i = 0; i < made; ++i) audio.push_back(decoder.decode(block[i]));
    if (on_chunk && !on_chunk(audio.data() + before, made)) break;
  }
  return audio;
}

double log_mel_distance(const kernels::Matrix& a, const kernels::Matrix& b) {
  if (a.rows() != b.rows()) throw std::invalid_argument("log_mel_distance: mel counts differ");
  const Eigen::Index frames = std::min(a.cols(), b.cols());
  if (frames == 0) throw std::invalid_argument("log_mel_distance: no frames");
  return (a.leftCols(frames) - b.leftCols(frames)).cwiseAbs().mean();
}

}  // namespace tts::engine
