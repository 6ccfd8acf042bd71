// Recordings for tests of `tts voices create`: a voiced sound with syllable-rate loudness changes
// between near-silences, which the intake's checks (trimming, level, clipping, pace) see as speech.
#pragma once

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tts/audio/audio_file.h"

namespace tts::testing_support {

// `seconds` of sound with `lead` seconds of near-silence on each side, at `amplitude` peak-ish.
inline std::vector<float> speech_like(double seconds, int rate, double lead = 0.5,
                                      float amplitude = 0.3f) {
  const auto n = static_cast<std::size_t>((seconds + 2 * lead) * rate);
  std::vector<float> out(n);
  std::mt19937 noise(7);
  std::normal_distribution<float> hiss(0.0f, 1e-4f);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / rate;
    double v = 0.0;
    if (t >= lead && t < lead + seconds)
      for (int h = 1; h <= 5; ++h) v += std::sin(2 * M_PI * 140.0 * h * t) / h;
    const double envelope = 0.6 + 0.4 * std::sin(2 * M_PI * 4.0 * t);
    out[i] = static_cast<float>(amplitude * 0.5 * v * envelope) + hiss(noise);
  }
  return out;
}

inline void write_speech_like(const std::filesystem::path& path, double seconds, int rate) {
  const std::vector<float> samples = speech_like(seconds, rate);
  audio::write_audio(path, samples.data(), samples.size(), rate);
}

// Short English prompts of about the length two seconds of speech hold.
inline const std::vector<std::string>& prompt_texts() {
  static const std::vector<std::string> texts = {
      "The weather is fine today.",    "Please leave a message after the tone.",
      "Your call is important to us.", "Press one for more options.",
      "The office opens at nine.",     "Thank you for waiting."};
  return texts;
}

// `count` recordings of two seconds, each with its .txt, in `folder`.
inline void write_prompt_folder(const std::filesystem::path& folder, int count) {
  std::filesystem::create_directories(folder);
  for (int i = 0; i < count; ++i) {
    const std::string id = "prompt" + std::to_string(100 + i);
    write_speech_like(folder / (id + ".wav"), 2.0, 16000);
    std::ofstream(folder / (id + ".txt"))
        << prompt_texts()[static_cast<std::size_t>(i) % prompt_texts().size()];
  }
}

}  // namespace tts::testing_support
