// `tts vocode`: copy-synthesis, audio → log-mel → WaveNet → audio; or log-mel frames (.npy, as
// `tts mel` and `tts synth-mel` write them) → WaveNet → audio.
#include <chrono>
#include <iostream>

#include "commands.h"
#include "tts/audio/audio_file.h"
#include "tts/engine/vocode.h"
#include "tts/kernels/compact_matrix.h"
#include "tts/kernels/npy.h"
#include "tts/vocoder/sample_codec.h"
#include "weights_option.h"

namespace tts::cli {

namespace {
struct VocodeOptions {
  std::string input, output, model;
  uint64_t seed = 1;
  float temperature = 1.0f;
  bool report = false;
  kernels::WeightPrecision weights = kernels::default_weight_precision();
};
// A (frames, n_mels) float32 array as an n_mels × frames matrix.
kernels::Matrix read_mel_frames(const std::string& path, int n_mels) {
  const kernels::NpyArray array = kernels::read_npy(path);
  if (array.shape.size() != 2 || array.shape[1] != static_cast<std::size_t>(n_mels))
    throw std::runtime_error(path + ": expected log-mel frames of shape (frames, " +
                             std::to_string(n_mels) + ") for this vocoder");
  kernels::Matrix mel(n_mels, static_cast<Eigen::Index>(array.shape[0]));
  std::copy(array.data.begin(), array.data.end(), mel.data());  // C (frames, mels) = mels × frames
  if (!mel.allFinite()) throw std::runtime_error(path + ": frames contain NaN or infinity");
  return mel;
}

}  // namespace

void register_vocode(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<VocodeOptions>();
  CLI::App* cmd = app.add_subcommand("vocode", "Re-synthesise a recording through the vocoder");
  cmd->add_option("input", o->input,
                  "Audio file to copy, or log-mel frames (.npy, frames x n_mels)")
      ->required();
  cmd->add_option("-o,--output", o->output, "Output audio (wav, flac, ogg, opus or mp3)")
      ->required();
  cmd->add_option("--model", o->model, "Vocoder folder (vocoder.json + vocoder.safetensors)")
      ->required();
  cmd->add_option("--seed", o->seed, "Sampling seed")
      ->capture_default_str()
      ->check(seed_validator());
  cmd->add_option("--temperature", o->temperature, "Sampling temperature (0 = arg-max)")
      ->check(CLI::Range(0.0f, 10.0f))
      ->capture_default_str();
  add_weights_option(*cmd, o->weights);
  cmd->add_flag("--report", o->report, "Print the log-mel distance to the input and the speed");
  cmd->callback([o, &exit_code] {
    vocoder::VocoderModel model;
    audio::Audio input;
    kernels::Matrix mel;
    const bool frames_given = std::filesystem::path(o->input).extension() == ".npy";
    try {
      model = vocoder::load_vocoder(o->model);
      if (frames_given)
        mel = read_mel_frames(o->input, model.features.n_mels);
      else
        input = audio::read_audio(o->input, model.features.sample_rate);
    } catch (const std::exception& e) {
      std::cerr << "tts vocode: " << e.what() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    const kernels::MelExtractor extractor(model.features);
    if (!frames_given) mel = extractor.compute(input.samples.data(), input.samples.size());
    if (mel.cols() < 2) {
      std::cerr << "tts vocode: " << o->input << ": too short to vocode\n";
      exit_code = kExitBadInput;
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    const std::vector<float> out =
        engine::vocode(model, mel, {o->seed, o->temperature}, nullptr, 4000, o->weights);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    audio::write_audio(o->output, out.data(), out.size(), model.features.sample_rate);
    if (o->report) {
      const kernels::Matrix out_mel = extractor.compute(out.data(), out.size());
      nlohmann::json report = {
          {"input", o->input},
          {"output", o->output},
          {"samples", out.size()},
          {"log_mel_distance", engine::log_mel_distance(mel, out_mel)},
          {"samples_per_second", std::round(static_cast<double>(out.size()) / seconds)},
          {"times_real_time",
           static_cast<double>(out.size()) / seconds / model.features.sample_rate}};
      if (!frames_given) {
        // The floor any vocoder with this codec can reach: the input itself, quantised.
        const auto& config = model.weights->config();
        const std::vector<float> quantised = vocoder::decode_samples(
            config, vocoder::encode_samples(input.samples, config.classes, config.preemphasis));
        const kernels::Matrix quantised_mel = extractor.compute(quantised.data(), quantised.size());
        report["log_mel_distance_of_mulaw_input"] = engine::log_mel_distance(mel, quantised_mel);
      }
      std::cout << report.dump() << "\n";
    }
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
