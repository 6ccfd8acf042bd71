#include "tts/voice_creation/create_voice.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tts/engine/voice_pack.h"
#include "tts/engine/voice_search.h"
#include "tts/kernels/atomic_file.h"
#include "tts/train/acoustic_trainer.h"
#include "tts/train/pitch_calibration.h"
#include "tts/voice_creation/creation_state.h"
#include "tts/voice_creation/held_out.h"
#include "tts/voice_creation/intake.h"
#include "tts/voice_creation/model_card.h"
#include "tts/voice_creation/pitch_fit.h"
#include "tts/voice_creation/training_plan.h"
#include "tts/voice_creation/vocoder_fit.h"

namespace fs = std::filesystem;

namespace tts::creation {

namespace {

using Clock = std::chrono::steady_clock;

// The pitch spread calibration's extra stretch (tts/train/pitch_calibration.h): the decoder
// renders a flatter contour than it is given. The language voices' common value, chosen on their
// training prompts (docs/languages.md).
constexpr double kPitchExtraStretch = 1.46;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The LJSpeech folder of some of the intake's rows, sharing its recordings.
void write_split(const fs::path& folder,
                 const std::vector<std::pair<std::string, std::string>>& rows) {
  fs::create_directories(folder);
  if (!fs::exists(folder / "wavs")) fs::create_directory_symlink("../corpus/wavs", folder / "wavs");
  std::string metadata;
  for (const auto& [id, text] : rows) metadata += id + "|" + text + "\n";
  kernels::write_file_atomically(folder / "metadata.csv", metadata);
}

std::vector<std::pair<std::string, std::string>> read_rows(const fs::path& metadata) {
  std::ifstream in(metadata);
  if (!in) throw std::runtime_error(metadata.string() + ": cannot open");
  std::vector<std::pair<std::string, std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    const auto bar = line.find('|');
    if (bar != std::string::npos) rows.emplace_back(line.substr(0, bar), line.substr(bar + 1));
  }
  return rows;
}

// Moves the finished voice into place, replacing an older one of the same name only once the
// new one is complete.
void install(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  const fs::path incoming = fs::path(to).concat(".incoming"),
                 outgoing = fs::path(to).concat(".replaced");
  fs::remove_all(incoming);
  fs::remove_all(outgoing);
  std::error_code ec;
  fs::rename(from, incoming, ec);
  if (ec) {  // another file system: copy, then let go of the work copy
    fs::copy(from, incoming, fs::copy_options::recursive);
    fs::remove_all(from);
  }
  if (fs::exists(to)) fs::rename(to, outgoing);
  fs::rename(incoming, to);
  fs::remove_all(outgoing);
}

std::vector<std::string> read_lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

// The recogniser knows US English only, so only an English voice has its words judged.
bool judges_words(const VoiceCreationOptions& o) { return o.espeak_voice.rfind("en", 0) == 0; }

std::optional<double> reference_mel_distance(const fs::path& base) {
  std::ifstream in(base / "base.json");
  if (!in) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("reference_mel_distance")) return std::nullopt;
  return j.at("reference_mel_distance").get<double>();
}

// One run of the command on one work folder: each stage is a method that does its work unless
// the state says an earlier run finished it, and records it as finished.
class Creation {
 public:
  Creation(const VoiceCreationOptions& options, CreationObserver& observer)
      : o_(options),
        observer_(observer),
        work_(options.work_dir),
        state_(open_creation_state(o_)),
        stage_start_(state_.elapsed_seconds) {
    observer_.line("work folder " + work_.string() +
                   (state_.done.empty() ? "" : " (resuming after " + state_.done.back() + ")"));
    training_log_.open(work_ / "training.log", std::ios::app);
    set_up_training();
  }

  CreatedVoice run() {
    intake();
    split();
    plan();
    train();
    choose_vocoder();
    calibrate_pitch();
    pack();
    report();
    install_voice();
    created_.folder = o_.out_dir;
    created_.minutes = state_.elapsed_seconds / 60.0;
    return created_;
  }

 private:
  // Adds the wall time since the last call to the state's.
  void clock_in() {
    state_.elapsed_seconds += seconds_since(last_clock_);
    last_clock_ = Clock::now();
  }
  void finish(const std::string& stage) {
    clock_in();
    state_.stage_seconds[stage] += state_.elapsed_seconds - stage_start_;
    stage_start_ = state_.elapsed_seconds;
    state_.done.push_back(stage);
    save_creation_state(work_, state_);
  }

  void intake() {
    if (state_.finished("intake")) {
      std::ifstream in(work_ / "intake.json");
      intake_ = nlohmann::json::parse(in).get<IntakeReport>();
      return;
    }
    observer_.stage("intake",
                    "checking, trimming and levelling the recordings in " + o_.data_dir.string());
    IntakeOptions io;
    io.data_dir = o_.data_dir;
    io.out_dir = work_ / "corpus";
    io.language = o_.espeak_voice;
    io.threads = o_.threads;
    intake_ = run_intake(io);
    kernels::write_file_atomically(work_ / "intake.json", nlohmann::json(intake_).dump(1) + "\n");
    for (const std::string& line : intake_.skip_lines) observer_.line(line);
    for (const std::string& line : intake_.warnings) observer_.line(line);
    std::istringstream table(format_intake_summary(intake_));
    for (std::string line; std::getline(table, line);) observer_.line(line);
    require_enough_audio(intake_, o_.minimum_minutes);
    finish("intake");
  }

  // The prompts held out (a file's, or the seeded choice), and the two corpora they split into.
  void split() {
    if (state_.finished("split")) return;
    observer_.stage("split", "choosing the held-out prompts that will judge the voice");
    const auto rows = read_rows(work_ / "corpus" / "metadata.csv");
    std::vector<std::string> ids;
    for (const auto& row : rows) ids.push_back(row.first);
    std::vector<std::string> held;
    if (o_.held_out_file.empty()) {
      held = choose_held_out(ids, o_.seed);
    } else {
      std::sort(ids.begin(), ids.end());
      for (const std::string& id : read_lines(o_.held_out_file)) {
        if (std::binary_search(ids.begin(), ids.end(), id))
          held.push_back(id);
        else
          observer_.line(o_.held_out_file.string() + ": \"" + id +
                         "\" is not among the recordings kept");
      }
      std::sort(held.begin(), held.end());
      if (held.empty())
        throw std::runtime_error(o_.held_out_file.string() + ": no prompt to hold out");
    }
    std::vector<std::pair<std::string, std::string>> training, held_out;
    for (const auto& row : rows)
      (std::binary_search(held.begin(), held.end(), row.first) ? held_out : training)
          .push_back(row);
    write_split(work_ / "train", training);
    write_split(work_ / "held-out", held_out);
    std::string list;
    for (const std::string& id : held) list += id + "\n";
    kernels::write_file_atomically(work_ / "held-out.txt", list);
    observer_.line(std::to_string(held.size()) + " prompts held out, " +
                   std::to_string(training.size()) + " to train on");
    finish("split");
  }

  void set_up_training() {
    t_.data_dir = work_ / "train";
    t_.out_dir = work_ / "acoustic";
    t_.language = o_.espeak_voice;
    t_.init_from = o_.base_dir / "acoustic";
    t_.architecture_from_init = true;
    t_.seed = o_.seed;
    t_.device = o_.device;
    t_.batch_utterances = 8;
    t_.checkpoint_every = 100;
    t_.validate_every = 250;
    t_.log_every = 50;
    t_.loader_threads = o_.threads;
  }

  // Trains (or resumes) up to `steps`, telling `each` of every step and keeping the state's clock.
  void run_training(int64_t steps, const train::ProgressCallback& each) {
    t_.steps = steps;
    t_.resume = fs::exists(t_.out_dir / "checkpoint.json");
    if (!t_.resume) fs::remove_all(t_.out_dir);
    t_.progress = [&](const train::TrainingProgress& p) {
      each(p);
      clock_in();
      if (p.step % t_.checkpoint_every == 0) save_creation_state(work_, state_);
    };
    train::train_acoustic(t_, training_log_);
  }

  // A few steps timed, then the steps that fit the budget.
  void plan() {
    if (!state_.plan) {
      observer_.stage("plan", "timing a few training steps on this machine");
      PlanInputs in;
      in.budget_seconds = o_.budget_minutes * 60.0;
      in.fixed_steps = o_.steps;
      in.held_out_seconds = intake_.seconds_of(read_lines(work_ / "held-out.txt"));
      in.threads = o_.threads;
      in.judge_words = judges_words(o_);
      in.probe_steps = std::min<int64_t>(kProbeSteps, o_.steps.value_or(kProbeSteps));
      // A run stopped between the timed steps and the plan times them again from the start.
      fs::remove_all(t_.out_dir);
      const auto start = Clock::now();
      run_training(in.probe_steps, [&](const train::TrainingProgress& p) {
        in.seconds_per_step = p.seconds_per_step;
      });
      in.load_seconds = std::max(0.0, seconds_since(start) - in.probe_steps * in.seconds_per_step);
      clock_in();
      in.elapsed_seconds = state_.elapsed_seconds;
      state_.plan = plan_training(in);
      finish("plan");
    }
    observer_.line(describe_plan(*state_.plan));
  }

  void train() {
    if (state_.finished("training")) return;
    observer_.stage("training", "fine-tuning the base acoustic model on the recordings");
    const TrainingPlan& plan = *state_.plan;
    run_training(plan.steps, [&](const train::TrainingProgress& p) {
      const double left = (plan.steps - p.step) * p.seconds_per_step + plan.reserved_seconds +
                          plan.leftover_seconds;
      observer_.training(p, left / 60.0);
    });
    finish("training");
  }

  void calibrate_pitch() {
    if (state_.finished("pitch")) return;
    observer_.stage("pitch", "calibrating the pitch spread on the training recordings");
    train::PitchCalibrationOptions pc;
    pc.model_dir = t_.out_dir;
    pc.data_dir = t_.data_dir;
    pc.language = o_.espeak_voice;
    pc.loader_threads = o_.threads;
    pc.extra_stretch = kPitchExtraStretch;
    const train::PitchCalibration c = train::calibrate_pitch_spread(pc, training_log_);
    char text[160];
    std::snprintf(text, sizeof text,
                  "the pitch predictor's shortfall: spread %.2f (over %d recordings)",
                  c.pitch_spread, c.utterances);
    observer_.line(text);
    PitchFitOptions fit;
    fit.model_dir = t_.out_dir;
    // Through the vocoder the voice will ship with: a vocoder that renders the speaker poorly
    // (the shared one, for a low voice it never heard) leaves Praat tracking noise, not pitch.
    fit.vocoder_dir = voice_vocoder_dir();
    fit.corpus_dir = t_.data_dir;
    fit.work_dir = work_ / "pitch-fit";
    fit.espeak_voice = o_.espeak_voice;
    fit.seed = o_.seed;
    fit.threads = o_.threads;
    const PitchFit fitted =
        fit_pitch_spread(fit, [&](const std::string& line) { observer_.line(line); });
    std::snprintf(text, sizeof text, "pitch spread %.2f kept", fitted.pitch_spread);
    observer_.line(text);
    finish("pitch");
  }

  VocoderFitOptions vocoder_fit_options() {
    VocoderFitOptions v;
    v.shared_dir = o_.vocoder_dir;
    v.corpus_dir = t_.data_dir;
    v.held_out_dir = work_ / "held-out";
    v.work_dir = work_ / "vocoder";
    v.seed = o_.seed;
    v.threads = o_.threads;
    v.device = o_.device;
    return v;
  }

  // The steps the vocoder's fine-tuning gets: given, or what the budget leaves once a few are
  // timed (0, and why, when that is too little).
  VocoderPlan plan_vocoder_steps(VocoderFitOptions& v) {
    if (o_.vocoder_steps)
      return {*o_.vocoder_steps, *o_.vocoder_steps == 0 ? "not asked for (--vocoder-steps 0)" : ""};
    if (o_.steps)
      return {0,
              "the training's steps were given (--steps) and the vocoder's were not "
              "(--vocoder-steps)"};
    VocoderPlanInputs in;
    in.budget_seconds = o_.budget_minutes * 60.0;
    in.held_out_seconds = intake_.seconds_of(read_lines(work_ / "held-out.txt"));
    in.threads = o_.threads;
    in.judge_words = judges_words(o_);
    clock_in();
    in.elapsed_seconds = state_.elapsed_seconds;
    if (!vocoder_worth_timing(in)) return plan_vocoder(in);
    observer_.line("timing a few steps of the vocoder's fine-tuning");
    const VocoderStepTiming timing = time_vocoder_steps(v, in.probe_steps, training_log_);
    clock_in();
    in.elapsed_seconds = state_.elapsed_seconds;
    in.seconds_per_step = timing.seconds_per_step;
    in.load_seconds = timing.load_seconds;
    return plan_vocoder(in);
  }

  void choose_vocoder() {
    if (state_.finished("vocoder")) return;
    observer_.stage("vocoder",
                    "fine-tuning the shared vocoder on the recordings, if the budget "
                    "leaves time, and judging whether it helps");
    VocoderFitOptions v = vocoder_fit_options();
    if (!state_.vocoder_steps) {
      const VocoderPlan plan = plan_vocoder_steps(v);
      state_.vocoder_steps = plan.steps;
      if (plan.steps == 0) state_.vocoder = VocoderChoice{0, plan.why, {}, {}, false};
      save_creation_state(work_, state_);
    }
    if (!state_.vocoder) {
      const int64_t steps = *state_.vocoder_steps;
      char text[120];
      std::snprintf(text, sizeof text, "fine-tuning the vocoder %lld steps",
                    static_cast<long long>(steps));
      observer_.line(text);
      v.steps = steps;
      v.progress = [&](const train::TrainingProgress& p) {
        clock_in();
        observer_.training(p, (steps - p.step) * p.seconds_per_step / 60.0);
        if (p.step % 100 == 0) save_creation_state(work_, state_);
      };
      state_.vocoder =
          fit_vocoder(v, training_log_, [&](const std::string& line) { observer_.line(line); });
    }
    observer_.line("vocoder: " + state_.vocoder->describe());
    finish("vocoder");
  }

  void pack() {
    if (state_.finished("pack")) return;
    observer_.stage("pack", tuned_vocoder_kept()
                                ? "assembling the voice with its fine-tuned vocoder"
                                : "assembling the voice with the shared vocoder");
    fs::remove_all(packed_);
    engine::VoicePackSources sources;
    sources.acoustic = t_.out_dir;
    sources.vocoder = voice_vocoder_dir();
    sources.extra_files = {{work_ / "held-out.txt", "held-out.txt"},
                           {work_ / "training.log", "training/acoustic.log"},
                           {work_ / "intake.json", "training/intake.json"}};
    engine::VoiceManifest manifest;
    manifest.name = o_.name;
    manifest.language = o_.espeak_voice;
    manifest.languages = {o_.language};
    manifest.speaker = o_.speaker;
    manifest.sex = o_.sex;
    manifest.licence = o_.licence;
    manifest.source = o_.source.empty() ? "recordings in " + o_.data_dir.string() : o_.source;
    manifest.description = o_.description.empty() ? "Made by `tts voices create` from " +
                                                        std::to_string(intake_.kept.size()) +
                                                        " recordings; see MODEL_CARD.md."
                                                  : o_.description;
    manifest.pitch_shift = engine::PitchShiftMethod::kAudio;
    engine::pack_voice(packed_, sources, manifest);
    finish("pack");
  }

  void report() {
    if (state_.finished("report")) {
      read_report(packed_);
      return;
    }
    observer_.stage("report", "judging the voice on its held-out prompts");
    ReportInputs ri;
    ri.voice_dir = packed_;
    ri.held_out_dir = work_ / "held-out";
    ri.work_dir = work_ / "report";
    ri.espeak_voice = o_.espeak_voice;
    ri.reference_mel_distance = reference_mel_distance(o_.base_dir);
    ri.judge_words = judges_words(o_);
    ri.reference_voice = engine::find_voice("default");
    ri.seed = o_.seed;
    ri.threads = o_.threads;
    created_.report = judge_voice(ri, [&](const std::string& line) { observer_.line(line); });
    kernels::write_file_atomically(packed_ / "report.json",
                                   nlohmann::json(created_.report).dump(2) + "\n");
    finish("report");
    // The card records the whole run's time, so it is written once the report's is known.
    write_model_card(packed_ / "MODEL_CARD.md", o_, intake_, *state_.plan, state_, created_.report);
  }

  void install_voice() {
    if (state_.finished("install")) {
      read_report(o_.out_dir);
      return;
    }
    observer_.stage("install", "installing the voice in " + o_.out_dir.string());
    install(packed_, o_.out_dir);
    finish("install");
  }

  bool tuned_vocoder_kept() const { return state_.vocoder && state_.vocoder->tuned_kept; }
  fs::path voice_vocoder_dir() const {
    return tuned_vocoder_kept() ? tuned_vocoder_dir(work_ / "vocoder") : o_.vocoder_dir;
  }

  void read_report(const fs::path& voice) {
    std::ifstream in(voice / "report.json");
    if (in) created_.report = nlohmann::json::parse(in).get<VoiceReport>();
  }

  const VoiceCreationOptions& o_;
  CreationObserver& observer_;
  const fs::path work_, packed_ = work_ / "voice";
  CreationState state_;
  double stage_start_;  // the state's elapsed seconds when the running stage began
  Clock::time_point last_clock_ = Clock::now();
  std::ofstream training_log_;
  train::AcousticTrainingOptions t_;
  IntakeReport intake_;
  CreatedVoice created_;
};

}  // namespace

const std::vector<std::string>& creation_stages() {
  static const std::vector<std::string> stages = {
      "intake", "split", "plan", "training", "vocoder", "pitch", "pack", "report", "install"};
  return stages;
}

CreatedVoice create_voice(const VoiceCreationOptions& given, CreationObserver& observer) {
  const VoiceCreationOptions options = resolve_defaults(given);
  return Creation(options, observer).run();
}

}  // namespace tts::creation
