// `tts pitch`: F0, voicing and energy of an audio file on the log-mel frames, as TSV (the targets
// of FastSpeech 2 / FastPitch-style pitch and energy predictors).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "tts/audio/audio_file.h"
#include "tts/kernels/atomic_file.h"
#include "tts/kernels/mel.h"
#include "tts/kernels/pitch.h"

namespace tts::cli {

namespace {
struct PitchOptions {
  std::string input;
  std::string output;  // empty: stdout
  kernels::PitchConfig config;
};
}  // namespace

void register_pitch(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PitchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "pitch",
      "Write F0, voicing and log energy per log-mel frame (12.5 ms at 16 kHz) of an audio file "
      "as TSV: time_s, f0_hz, voiced, log_energy");
  cmd->add_option("input", options->input, "Audio file (wav, flac, ogg, ...), read at 16 kHz")
      ->required();
  cmd->add_option("-o,--output", options->output, "Output .tsv file [default: stdout]");
  cmd->add_option("--fmin", options->config.fmin, "Lowest F0 reported (Hz)")->capture_default_str();
  cmd->add_option("--fmax", options->config.fmax, "Highest F0 reported (Hz)")
      ->capture_default_str();

  cmd->callback([options, &exit_code] {
    const kernels::MelConfig features;  // the log-mel frames every model trains on
    try {
      options->config.validate(features);
    } catch (const std::invalid_argument& e) {
      std::cerr << "tts pitch: " << e.what() << "\n";
      exit_code = kExitUsage;
      return;
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(options->input, ec)) {
      std::cerr << "tts pitch: input file not found: " << options->input << "\n";
      exit_code = kExitBadInput;
      return;
    }
    audio::Audio audio;
    try {
      audio = audio::read_audio(options->input, features.sample_rate);
    } catch (const audio::AudioError& e) {
      std::cerr << "tts pitch: " << e.what() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    const float* samples = audio.samples.data();
    const std::size_t n = audio.samples.size();
    const kernels::MelExtractor extractor(features);
    Eigen::VectorXf log_energy;
    extractor.compute(samples, n, &log_energy);
    const std::vector<float> f0 = kernels::track_pitch(samples, n, features, options->config);

    std::ostringstream rows;
    rows << "time_s\tf0_hz\tvoiced\tlog_energy\n";
    char line[96];
    for (std::size_t f = 0; f < f0.size(); ++f) {
      const double time = static_cast<double>(f) * features.hop_length / features.sample_rate;
      std::snprintf(line, sizeof line, "%.4f\t%.2f\t%d\t%.4f\n", time, f0[f], f0[f] > 0.0f ? 1 : 0,
                    log_energy[static_cast<Eigen::Index>(f)]);
      rows << line;
    }
    if (options->output.empty()) {
      std::cout << rows.str() << std::flush;
      if (!std::cout) {
        std::cerr << "tts pitch: could not write to stdout\n";
        exit_code = kExitFailure;
        return;
      }
    } else {
      try {
        kernels::write_file_atomically(options->output, rows.str());
      } catch (const std::runtime_error& e) {
        std::cerr << "tts pitch: " << e.what() << "\n";
        exit_code = kExitFailure;
        return;
      }
      std::size_t voiced = 0;
      for (float v : f0) voiced += v > 0.0f;
      std::cerr << "tts pitch: " << f0.size() << " frames (" << voiced << " voiced) -> "
                << options->output << "\n";
    }
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
