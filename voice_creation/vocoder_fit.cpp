#include "tts/voice_creation/vocoder_fit.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ostream>

#include "fixed_point_text.h"
#include "parallel_for.h"
#include "tts/audio/audio_file.h"
#include "tts/engine/vocode.h"
#include "tts/kernels/mel.h"
#include "tts/train/audio_corpus.h"
#include "tts/train/vocoder_trainer.h"
#include "tts/voice_creation/praat.h"

namespace fs = std::filesystem;

namespace tts::creation {

namespace {

std::string describe_score(const CopySynthesisScore& s) {
  return "log-mel distance " + fixed(s.mel_distance, 3) +
         (s.hnr_db ? ", HNR " + fixed(*s.hnr_db, 2) + " dB" : std::string());
}

// The trainer's options for fine-tuning the shared vocoder into work_dir/run, `steps` in all.
train::VocoderTrainingOptions training_options(const VocoderFitOptions& o, int64_t steps) {
  train::VocoderTrainingOptions t;
  t.data_dir = o.corpus_dir;
  t.out_dir = tuned_vocoder_dir(o.work_dir);
  t.init_from = o.shared_dir;
  t.architecture_from_init = true;
  t.steps = steps;
  t.seed = o.seed;
  t.resume = fs::exists(t.out_dir / "checkpoint.json");
  t.adam.learning_rate = o.learning_rate;
  // The same schedule whatever the steps, so that the timed steps are the run's first.
  t.warmup_steps = 100;
  // Judged on the held-out prompts afterwards: no validation audio in between, which would cost
  // a second of sampling each time.
  t.validate_every = 0;
  t.validation_audio_seconds = 0.0;
  t.checkpoint_every = 100;
  t.log_every = 50;
  t.loader_threads = o.threads;
  t.compute_threads = o.threads;
  t.device = o.device;
  t.progress = o.progress;
  return t;
}

// Kept when nearer the recordings and, where Praat measured both, no less harmonic.
bool better(const CopySynthesisScore& tuned, const CopySynthesisScore& shared) {
  if (tuned.mel_distance >= shared.mel_distance) return false;
  return !(tuned.hnr_db && shared.hnr_db) || *tuned.hnr_db >= *shared.hnr_db;
}

}  // namespace

std::string VocoderChoice::describe() const {
  if (steps == 0) return "the shared vocoder as it is: " + why;
  std::string text =
      "the shared vocoder fine-tuned " + std::to_string(steps) + " steps on the recordings, ";
  text += tuned_kept ? "kept" : "not kept (the voice speaks through the shared one)";
  if (shared && tuned)
    text += "; copy-synthesis of the held-out prompts: shared " + describe_score(*shared) +
            ", fine-tuned " + describe_score(*tuned);
  return text;
}

void to_json(nlohmann::json& j, const VocoderChoice& c) {
  auto score = [](const std::optional<CopySynthesisScore>& s) {
    if (!s) return nlohmann::json();
    return nlohmann::json{{"log_mel_distance", s->mel_distance},
                          {"hnr_db", s->hnr_db ? nlohmann::json(*s->hnr_db) : nlohmann::json()}};
  };
  j = {{"steps", c.steps},
       {"why", c.why},
       {"shared", score(c.shared)},
       {"tuned", score(c.tuned)},
       {"tuned_kept", c.tuned_kept}};
}

void from_json(const nlohmann::json& j, VocoderChoice& c) {
  auto score = [](const nlohmann::json& v) -> std::optional<CopySynthesisScore> {
    if (v.is_null()) return std::nullopt;
    CopySynthesisScore s;
    v.at("log_mel_distance").get_to(s.mel_distance);
    if (!v.at("hnr_db").is_null()) s.hnr_db = v.at("hnr_db").get<double>();
    return s;
  };
  j.at("steps").get_to(c.steps);
  j.at("why").get_to(c.why);
  c.shared = score(j.at("shared"));
  c.tuned = score(j.at("tuned"));
  j.at("tuned_kept").get_to(c.tuned_kept);
}

fs::path tuned_vocoder_dir(const fs::path& work_dir) { return work_dir / "run"; }

CopySynthesisScore score_copy_synthesis(const fs::path& vocoder_dir, const fs::path& held_out_dir,
                                        const fs::path& audio_dir, uint64_t seed, int threads) {
  const vocoder::VocoderModel model = vocoder::load_vocoder(vocoder_dir);
  std::vector<std::string> warnings;
  const std::vector<train::CorpusEntry> prompts = train::list_corpus(held_out_dir, warnings);
  if (prompts.empty()) throw std::runtime_error(held_out_dir.string() + ": no held-out prompts");
  fs::create_directories(audio_dir);
  const int rate = model.features.sample_rate;
  const kernels::MelExtractor mel(model.features);
  std::vector<double> distance(prompts.size()), frames(prompts.size());
  parallel_for(prompts.size(), threads, [&](std::size_t i) {
    const audio::Audio recording = audio::read_audio(prompts[i].path, rate);
    const kernels::Matrix original =
        mel.compute(recording.samples.data(), recording.samples.size());
    const std::vector<float> copy = engine::vocode(model, original, {seed, 1.0f, 1});
    audio::write_audio(audio_dir / (prompts[i].id + ".wav"), copy.data(), copy.size(), rate);
    distance[i] = engine::log_mel_distance(original, mel.compute(copy.data(), copy.size()));
    frames[i] = static_cast<double>(original.cols());
  });
  CopySynthesisScore score;
  double weight = 0.0;  // pooled over frames, as the report pools its distance
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    score.mel_distance += distance[i] * frames[i];
    weight += frames[i];
  }
  if (weight > 0) score.mel_distance /= weight;
  if (praat_available()) {
    std::vector<fs::path> files;
    for (const auto& p : prompts) files.push_back(fs::absolute(audio_dir / (p.id + ".wav")));
    const auto measured = run_praat(files, audio_dir / "praat");
    std::vector<PraatMeasure> pooled;
    for (const fs::path& file : files)
      if (const auto found = measured.find(file); found != measured.end())
        pooled.push_back(found->second);
    score.hnr_db = pool_measures(pooled).hnr_db;
  }
  return score;
}

VocoderStepTiming time_vocoder_steps(const VocoderFitOptions& o, int64_t probe_steps,
                                     std::ostream& log) {
  // A run stopped between the timed steps and the plan times them again from the start.
  fs::remove_all(tuned_vocoder_dir(o.work_dir));
  train::VocoderTrainingOptions t = training_options(o, probe_steps);
  VocoderStepTiming timing;
  t.progress = [&](const train::TrainingProgress& p) {
    timing.seconds_per_step = p.seconds_per_step;
    if (o.progress) o.progress(p);
  };
  const auto start = std::chrono::steady_clock::now();
  train::train_vocoder(t, log);
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  timing.load_seconds = std::max(0.0, total - probe_steps * timing.seconds_per_step);
  return timing;
}

VocoderChoice fit_vocoder(const VocoderFitOptions& o, std::ostream& log,
                          const std::function<void(const std::string&)>& note) {
  VocoderChoice choice;
  choice.steps = o.steps;
  train::train_vocoder(training_options(o, o.steps), log);
  const fs::path judged = o.work_dir / "judged";
  choice.shared =
      score_copy_synthesis(o.shared_dir, o.held_out_dir, judged / "shared", o.seed, o.threads);
  note("copy-synthesis through the shared vocoder: " + describe_score(*choice.shared));
  choice.tuned = score_copy_synthesis(tuned_vocoder_dir(o.work_dir), o.held_out_dir,
                                      judged / "tuned", o.seed, o.threads);
  note("copy-synthesis through the fine-tuned vocoder: " + describe_score(*choice.tuned));
  choice.tuned_kept = better(*choice.tuned, *choice.shared);
  choice.why = choice.tuned_kept ? "nearer the recordings on the held-out prompts"
                                 : "no better than the shared one on the held-out prompts";
  return choice;
}

}  // namespace tts::creation
