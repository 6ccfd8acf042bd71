// `tts mel`: log-mel features of an audio file, written as a float32 .npy (frames x n_mels).
#include <filesystem>
#include <iostream>
#include <optional>

#include "commands.h"
#include "tts/audio/audio_file.h"
#include "tts/kernels/mel.h"
#include "tts/kernels/npy.h"

namespace tts::cli {

namespace {
struct MelOptions {
  std::string input;
  std::string output;
  kernels::MelConfig config;
  std::optional<float> fmax;  // unset: 8000 Hz or sample_rate/2, whichever is lower
  bool no_center = false;
};
}  // namespace

void register_mel(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<MelOptions>();
  kernels::MelConfig& config = options->config;
  CLI::App* cmd =
      app.add_subcommand("mel", "Write the log-mel features of an audio file as a .npy array");
  cmd->add_option("input", options->input, "Audio file (wav, flac, ogg, ...)")->required();
  cmd->add_option("-o,--output", options->output, "Output .npy file (float32, frames x n_mels)")
      ->required();
  cmd->add_option("--sample-rate", config.sample_rate, "Resample the audio to this rate (Hz)")
      ->capture_default_str();
  cmd->add_option("--n-fft", config.n_fft, "FFT size (even)")->capture_default_str();
  cmd->add_option("--hop", config.hop_length, "Hop length in samples")->capture_default_str();
  cmd->add_option("--win", config.win_length, "Hann window length in samples (<= n-fft)")
      ->capture_default_str();
  cmd->add_option("--n-mels", config.n_mels, "Number of mel bands")->capture_default_str();
  cmd->add_option("--fmin", config.fmin, "Lowest filter edge (Hz)")->capture_default_str();
  cmd->add_option("--fmax", options->fmax,
                  "Highest filter edge (Hz) [default: 8000 or sample-rate/2 if lower]");
  cmd->add_option("--log-floor", config.log_floor, "Magnitude floor before the log")
      ->capture_default_str();
  cmd->add_flag("--no-center", options->no_center,
                "Frames start at 0 instead of being centred (no reflect padding)");

  cmd->callback([options, &exit_code] {
    kernels::MelConfig config = options->config;
    config.center = !options->no_center;
    config.fmax = options->fmax ? *options->fmax
                                : std::min(8000.0f, static_cast<float>(config.sample_rate) / 2);
    try {
      config.validate();
      kernels::MelExtractor probe(config);  // also rejects mel channels that hold no FFT bin
    } catch (const std::invalid_argument& e) {
      std::cerr << "tts mel: " << e.what() << "\n";
      exit_code = kExitUsage;
      return;
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(options->input, ec)) {
      std::cerr << "tts mel: input file not found: " << options->input << "\n";
      exit_code = kExitBadInput;
      return;
    }
    audio::Audio audio;
    try {
      audio = audio::read_audio(options->input, config.sample_rate);
    } catch (const audio::AudioError& e) {
      std::cerr << "tts mel: " << e.what() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    const kernels::MelExtractor extractor(config);
    const Eigen::MatrixXf mel = extractor.compute(audio.samples.data(), audio.samples.size());
    try {
      // Column-major n_mels x frames is exactly C-order (frames, n_mels).
      kernels::write_npy(
          options->output, mel.data(),
          {static_cast<std::size_t>(mel.cols()), static_cast<std::size_t>(mel.rows())});
    } catch (const kernels::NpyError& e) {
      std::cerr << "tts mel: " << e.what() << "\n";
      exit_code = kExitFailure;
      return;
    }
    std::cerr << "tts mel: " << mel.cols() << " frames x " << mel.rows() << " mels -> "
              << options->output << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
