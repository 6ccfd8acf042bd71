#include "tts/voice_creation/pitch_fit.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "tts/acoustic/model_files.h"
#include "tts/audio/audio_file.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice_pack.h"
#include "tts/kernels/pitch.h"
#include "tts/train/audio_corpus.h"
#include "tts/train/pitch_calibration.h"

namespace fs = std::filesystem;

namespace tts::creation {

namespace {

// The F0 track of each of `count` items, made on `threads` threads.
std::vector<std::vector<float>> track_each(
    std::size_t count, int threads, const std::function<std::vector<float>(std::size_t)>& track) {
  std::vector<std::vector<float>> out(count);
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, threads); ++t)
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < count; i = next++) {
        try {
          out[i] = track(i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (!failure) failure = std::current_exception();
        }
      }
    });
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace

double pooled_f0_sd_semitones(const std::vector<std::vector<float>>& f0_hz) {
  double n = 0.0, sum = 0.0, squares = 0.0;
  for (const auto& track : f0_hz)
    for (float hz : track)
      if (hz > 0.0f) {
        const double st = 12.0 * std::log2(hz / 100.0);
        n += 1.0;
        sum += st;
        squares += st * st;
      }
  return n >= 2.0 ? std::sqrt(std::max(0.0, (squares - sum * sum / n) / (n - 1.0))) : 0.0;
}

PitchFit fit_pitch_spread(const PitchFitOptions& o,
                          const std::function<void(const std::string&)>& note) {
  std::vector<std::string> warnings;
  std::vector<train::CorpusEntry> rows = train::list_corpus(o.corpus_dir, warnings);
  if (rows.empty()) throw std::runtime_error(o.corpus_dir.string() + ": no prompts");
  // Prompts spread evenly over the corpus (it is in the order the person recorded it).
  std::vector<train::CorpusEntry> prompts;
  const std::size_t wanted =
      std::min<std::size_t>(static_cast<std::size_t>(o.prompts), rows.size());
  for (std::size_t k = 0; k < wanted; ++k) prompts.push_back(rows[k * rows.size() / wanted]);

  // The trial voices are the model as it is, packed with the vocoder, at each spread tried.
  const fs::path trial_model = o.work_dir / "acoustic", trial_voice = o.work_dir / "voice";
  fs::remove_all(o.work_dir);
  fs::create_directories(trial_model);
  for (const char* file : {"acoustic.json", "acoustic.safetensors"})
    fs::copy_file(o.model_dir / file, trial_model / file);
  engine::VoiceManifest manifest;
  manifest.name = "pitch-trial";
  manifest.language = o.espeak_voice;
  manifest.licence = "none";
  manifest.source = "a trial of tts voices create";

  PitchFit fit;
  auto measure = [&](double spread) {
    train::write_pitch_spread(trial_model, spread);
    engine::pack_voice(trial_voice, {trial_model, o.vocoder_dir, {}}, manifest);
    const std::shared_ptr<const engine::Voice> voice = engine::Voice::load(trial_voice);
    const auto tracks = track_each(prompts.size(), o.threads, [&](std::size_t i) {
      engine::SynthesisOptions options;
      options.seed = o.seed + i;
      const std::vector<float> said = engine::synthesize_all(voice, prompts[i].text, options);
      return kernels::track_pitch(said.data(), said.size(), voice->features());
    });
    const double sd = pooled_f0_sd_semitones(tracks);
    fit.trials.push_back({spread, sd});
    char text[160];
    std::snprintf(text, sizeof text,
                  "pitch spread %.2f: the voice's F0 spread %.2f semitones, the recordings' %.2f",
                  spread, sd, fit.recordings_f0_sd);
    note(text);
    return sd;
  };

  // The recordings' spread, by the same tracker, on the same prompts.
  engine::pack_voice(trial_voice, {trial_model, o.vocoder_dir, {}}, manifest);
  const kernels::MelConfig features = engine::Voice::load(trial_voice)->features();
  fit.recordings_f0_sd =
      pooled_f0_sd_semitones(track_each(prompts.size(), o.threads, [&](std::size_t i) {
        const audio::Audio a = audio::read_audio(prompts[i].path, features.sample_rate);
        return kernels::track_pitch(a.samples.data(), a.samples.size(), features);
      }));
  if (!(fit.recordings_f0_sd > 0.0))
    throw std::runtime_error(o.corpus_dir.string() +
                             ": too little voiced sound to measure its pitch");

  // The first spread is the predictor's calibration; the second scales it by the shortfall
  // heard; the others step along the line through the last two (the spread heard grows more
  // slowly than the factor: the spread between sentences does not move with it).
  const double target = fit.recordings_f0_sd;
  double spread = acoustic::load_acoustic_files(o.model_dir).weights->config().pitch_spread;
  double heard = measure(spread);
  for (int trial = 1; trial < o.trials && std::fabs(heard - target) > o.close_enough; ++trial) {
    double next = spread * target / std::max(heard, 1e-3);
    if (trial >= 2) {
      const PitchTrial& a = fit.trials[fit.trials.size() - 2];
      const PitchTrial& b = fit.trials.back();
      if (std::fabs(b.f0_sd_semitones - a.f0_sd_semitones) > 1e-3)
        next = b.pitch_spread + (target - b.f0_sd_semitones) * (b.pitch_spread - a.pitch_spread) /
                                    (b.f0_sd_semitones - a.f0_sd_semitones);
    }
    next = std::clamp(next, std::max(0.25, spread / 2.0), std::min(4.0, spread * 2.0));
    if (std::fabs(next - spread) < 0.01) break;
    spread = next;
    heard = measure(spread);
  }
  const auto best = std::min_element(
      fit.trials.begin(), fit.trials.end(), [&](const PitchTrial& a, const PitchTrial& b) {
        return std::fabs(a.f0_sd_semitones - target) < std::fabs(b.f0_sd_semitones - target);
      });
  fit.pitch_spread = best->pitch_spread;
  train::write_pitch_spread(o.model_dir, fit.pitch_spread);
  fs::remove_all(o.work_dir);
  return fit;
}

}  // namespace tts::creation
