#include "tts/voice_creation/pitch_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>
#include <utility>

#include "parallel_for.h"
#include "tts/acoustic/model_files.h"
#include "tts/audio/audio_file.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice_pack.h"
#include "tts/kernels/pitch.h"
#include "tts/train/audio_corpus.h"
#include "tts/train/pitch_calibration.h"
#include "tts/voice_creation/praat.h"

namespace fs = std::filesystem;

namespace tts::creation {

namespace {

// The F0 track of each of `count` items, made on `threads` threads.
std::vector<std::vector<float>> track_each(
    std::size_t count, int threads, const std::function<std::vector<float>(std::size_t)>& track) {
  std::vector<std::vector<float>> out(count);
  parallel_for(count, threads, [&](std::size_t i) { out[i] = track(i); });
  return out;
}

}  // namespace

double pooled_f0_sd_semitones(const std::vector<std::vector<float>>& f0_hz,
                              const PitchRange& range) {
  SemitoneSpread spread(range);
  for (const auto& track : f0_hz)
    for (float hz : track) spread.add(hz);
  return spread.sd();
}

double kept_spread(const std::vector<PitchTrial>& trials, double target, double by_at_least) {
  const auto off = [&](const PitchTrial& t) { return std::fabs(t.f0_sd_semitones - target); };
  const auto best =
      std::min_element(trials.begin(), trials.end(),
                       [&](const PitchTrial& a, const PitchTrial& b) { return off(a) < off(b); });
  return off(*best) < off(trials.front()) - by_at_least ? best->pitch_spread
                                                        : trials.front().pitch_spread;
}

double paired_spread_standard_error(const std::vector<std::vector<float>>& voice,
                                    const std::vector<std::vector<float>>& recordings,
                                    uint64_t seed, int rounds, const PitchRange& range) {
  const std::size_t n = std::min(voice.size(), recordings.size());
  if (n < 2 || rounds < 2) return 0.0;
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  std::vector<std::vector<float>> said(n), recorded(n);
  double sum = 0.0, squares = 0.0;
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = pick(random);
      said[i] = voice[j];
      recorded[i] = recordings[j];
    }
    const double d = pooled_f0_sd_semitones(said, range) - pooled_f0_sd_semitones(recorded, range);
    sum += d;
    squares += d * d;
  }
  return std::sqrt(std::max(0.0, (squares - sum * sum / rounds) / (rounds - 1)));
}

PitchFit fit_pitch_spread(const PitchFitOptions& o,
                          const std::function<void(const std::string&)>& note) {
  // The recordings the trainer validated on and never trained on (load_audio_corpus splits them off
  // the same way for every run on the same folder): the voice's pitch on text it has not learnt
  // is what the held-out prompts will judge; on its training prompts it is wider.
  train::AudioCorpusOptions corpus_options;
  const acoustic::AcousticModelFiles model = acoustic::load_acoustic_files(o.model_dir);
  corpus_options.features = model.features;
  corpus_options.threads = o.threads;
  const train::AudioCorpus corpus = train::load_audio_corpus(o.corpus_dir, corpus_options);
  std::vector<train::AudioUtterance> prompts;
  for (const train::AudioUtterance& u : corpus.validation)
    if (prompts.size() < static_cast<std::size_t>(o.prompts)) prompts.push_back(u);
  if (prompts.empty()) throw std::runtime_error(o.corpus_dir.string() + ": no validation prompts");

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
  const bool use_praat = praat_available();
  fit.tracker = use_praat ? "Praat" : "the engine's pitch tracker";
  // The F0 of each file: Praat's where it is installed, the one that judges the voice in its
  // report (on other prompts); the engine's own tracker otherwise.
  auto f0_of = [&](const std::vector<fs::path>& files, const kernels::MelConfig& features) {
    if (!use_praat)
      return track_each(files.size(), o.threads, [&](std::size_t i) {
        const audio::Audio a = audio::read_audio(files[i], features.sample_rate);
        return kernels::track_pitch(a.samples.data(), a.samples.size(), features);
      });
    const auto measured = run_praat(files, o.work_dir / "praat");
    std::vector<std::vector<float>> tracks(files.size());
    for (std::size_t i = 0; i < files.size(); ++i)
      if (const auto found = measured.find(files[i]); found != measured.end())
        tracks[i].assign(found->second.f0.begin(), found->second.f0.end());
    return tracks;
  };
  std::vector<std::vector<float>> voice_tracks;  // of the last trial, prompt by prompt
  auto measure = [&](double spread) {
    train::write_pitch_spread(trial_model, spread);
    engine::pack_voice(trial_voice, {trial_model, o.vocoder_dir, {}}, manifest);
    const std::shared_ptr<const engine::Voice> voice = engine::Voice::load(trial_voice);
    std::vector<fs::path> said(prompts.size());
    parallel_for(prompts.size(), o.threads, [&](std::size_t i) {
      engine::SynthesisOptions options;
      options.seed = o.seed + i;
      const std::vector<float> audio = engine::synthesize_all(voice, prompts[i].text, options);
      said[i] = fs::absolute(o.work_dir / "said" / (std::to_string(i) + ".wav"));
      audio::write_audio(said[i], audio.data(), audio.size(), voice->sample_rate());
    });
    voice_tracks = f0_of(said, voice->features());
    const double sd = pooled_f0_sd_semitones(voice_tracks, fit.range);
    fit.trials.push_back({spread, sd});
    char text[160];
    std::snprintf(text, sizeof text,
                  "pitch spread %.2f: the voice's F0 spread %.2f semitones, the recordings' %.2f",
                  spread, sd, fit.recordings_f0_sd);
    note(text);
    return sd;
  };

  fit.pitch_spread = model.weights->config().pitch_spread;
  if (prompts.size() < static_cast<std::size_t>(o.min_prompts)) {
    note("only " + std::to_string(prompts.size()) + (prompts.size() == 1 ? " prompt" : " prompts") +
         " that training validated on, too few to judge the spread by ear: the calibrated "
         "spread is kept");
    fs::remove_all(o.work_dir);
    return fit;
  }

  // The recordings' spread, by the same tracker, on the same prompts.
  fs::create_directories(o.work_dir / "said");
  std::vector<fs::path> recordings;
  for (const auto& p : prompts) recordings.push_back(fs::absolute(p.path));
  const std::vector<std::vector<float>> recording_tracks =
      f0_of(recordings, corpus_options.features);
  std::vector<double> recorded_hz;
  for (const auto& track : recording_tracks)
    recorded_hz.insert(recorded_hz.end(), track.begin(), track.end());
  fit.range = speaker_pitch_range(std::move(recorded_hz));
  fit.recordings_f0_sd = pooled_f0_sd_semitones(recording_tracks, fit.range);
  if (!(fit.recordings_f0_sd > 0.0)) {
    note(
        "too little voiced sound in the recordings to measure their pitch: the calibrated spread "
        "is kept");
    fs::remove_all(o.work_dir);
    return fit;
  }
  char text[200];
  std::snprintf(text, sizeof text, ", within their pitch range of %.0f to %.0f Hz",
                fit.range.floor_hz, fit.range.ceiling_hz);
  note("the F0 spread of the " + std::to_string(prompts.size()) +
       " prompts training validated on, by " + fit.tracker +
       (fit.range.bounded() ? std::string(text) : std::string()));

  // The first spread is the predictor's calibration; the second scales it by the shortfall
  // heard; the others step along the line through the last two (the spread heard grows more
  // slowly than the factor: the spread between sentences does not move with it).
  const double target = fit.recordings_f0_sd, calibrated = fit.pitch_spread;
  double spread = calibrated, heard = measure(spread);
  // How far the difference between the voice and the recordings on these prompts could be from
  // its value on others: the spread moves only when the difference heard is beyond it.
  fit.standard_error = paired_spread_standard_error(voice_tracks, recording_tracks, o.seed,
                                                    o.bootstrap_rounds, fit.range);
  const double tolerance = std::max(o.close_enough, o.standard_errors * fit.standard_error);
  std::snprintf(text, sizeof text,
                "on these prompts the difference is known to ±%.2f semitones (paired bootstrap): "
                "the spread moves only when the voice is more than %.2f off",
                fit.standard_error, tolerance);
  note(text);
  const double lowest = std::max(0.25, calibrated / o.max_stretch),
               highest = std::min(4.0, calibrated * o.max_stretch);
  for (int trial = 1; trial < o.trials && std::fabs(heard - target) > tolerance; ++trial) {
    double next = spread * target / std::max(heard, 1e-3);
    if (trial >= 2) {
      const PitchTrial& a = fit.trials[fit.trials.size() - 2];
      const PitchTrial& b = fit.trials.back();
      if (std::fabs(b.f0_sd_semitones - a.f0_sd_semitones) > 1e-3)
        next = b.pitch_spread + (target - b.f0_sd_semitones) * (b.pitch_spread - a.pitch_spread) /
                                    (b.f0_sd_semitones - a.f0_sd_semitones);
    }
    next = std::clamp(next, lowest, highest);
    if (std::fabs(next - spread) < 0.01) break;
    spread = next;
    heard = measure(spread);
  }
  fit.pitch_spread = kept_spread(fit.trials, target, o.close_enough);
  train::write_pitch_spread(o.model_dir, fit.pitch_spread);
  fs::remove_all(o.work_dir);
  return fit;
}

}  // namespace tts::creation
