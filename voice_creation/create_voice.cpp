#include "tts/voice_creation/create_voice.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tts/engine/voice_pack.h"
#include "tts/engine/voice_search.h"
#include "tts/frontend/language.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/kernels/atomic_file.h"
#include "tts/train/acoustic_trainer.h"
#include "tts/train/pitch_calibration.h"
#include "tts/voice_creation/creation_state.h"
#include "tts/voice_creation/held_out.h"
#include "tts/voice_creation/intake.h"
#include "tts/voice_creation/model_card.h"
#include "tts/voice_creation/training_plan.h"

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

fs::path home_folder(const char* variable, const char* fallback) {
  if (const char* value = std::getenv(variable); value && *value) return value;
  const char* home = std::getenv("HOME");
  if (!home || !*home)
    throw std::runtime_error(std::string("neither $") + variable + " nor $HOME is set");
  return fs::path(home) / fallback;
}

// The folder `name` on the voice search path (the first that holds `inside`).
fs::path find_on_voice_path(const std::string& name, const std::string& inside,
                            const std::string& what) {
  for (const fs::path& folder : engine::voice_search_path())
    if (fs::exists(folder / name / inside)) return folder / name;
  throw std::runtime_error("no " + what + " (" + name + "/" + inside +
                           ") on the voice search path; give its folder");
}

void check_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.' || name[0] == '-')
    throw std::invalid_argument("voice name \"" + name +
                                "\": 1 to 64 characters, not starting with '.' or '-'");
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      throw std::invalid_argument("voice name \"" + name +
                                  "\": only letters, digits, '-', '_' and '.'");
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

std::optional<double> reference_mel_distance(const fs::path& base) {
  std::ifstream in(base / "base.json");
  if (!in) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("reference_mel_distance")) return std::nullopt;
  return j.at("reference_mel_distance").get<double>();
}

}  // namespace

std::string espeak_voice_of(const std::string& tag) {
  std::string lower = tag;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::replace(lower.begin(), lower.end(), '_', '-');
  std::vector<std::string> candidates = {lower};
  // Regions espeak-ng has no voice of, read by the nearest one it has.
  if (lower.rfind("es-", 0) == 0 && lower != "es-es") candidates.push_back("es-419");
  if (lower.rfind("fr-", 0) == 0) candidates.push_back("fr-fr");
  if (lower.rfind("pt-", 0) == 0 && lower != "pt-br") candidates.push_back("pt");
  candidates.push_back(lower.substr(0, lower.find('-')));
  for (const std::string& candidate : candidates) {
    try {
      frontend::TextPipeline probe(candidate);
      return candidate;
    } catch (const std::exception&) {
    }
  }
  throw std::invalid_argument("language \"" + tag + "\": espeak-ng has no voice for it");
}

VoiceCreationOptions resolve_defaults(VoiceCreationOptions o) {
  check_name(o.name);
  o.data_dir = fs::absolute(o.data_dir);
  if (!fs::is_directory(o.data_dir))
    throw std::runtime_error(o.data_dir.string() + ": not a folder");
  if (!frontend::looks_like_bcp47(o.language))
    throw std::invalid_argument("--lang \"" + o.language +
                                "\" is not a BCP 47 tag (en-US, fr-CA, …)");
  o.language = frontend::bcp47_casing(o.language);
  if (o.espeak_voice.empty()) o.espeak_voice = espeak_voice_of(o.language);
  if (o.base_dir.empty())
    o.base_dir = find_on_voice_path("base", "acoustic/acoustic.json", "voice base");
  if (o.vocoder_dir.empty())
    o.vocoder_dir = find_on_voice_path("shared-vocoder", "vocoder.json", "shared vocoder");
  if (o.out_dir.empty())
    o.out_dir = home_folder("XDG_DATA_HOME", ".local/share") / "tts" / "voices" / o.name;
  if (o.work_dir.empty())
    o.work_dir = home_folder("XDG_CACHE_HOME", ".cache") / "tts" / "voices-create" / o.name;
  if (!o.held_out_file.empty()) o.held_out_file = fs::absolute(o.held_out_file);
  o.base_dir = fs::absolute(o.base_dir);
  o.vocoder_dir = fs::absolute(o.vocoder_dir);
  o.out_dir = fs::absolute(o.out_dir);
  o.work_dir = fs::absolute(o.work_dir);
  return o;
}

CreatedVoice create_voice(const VoiceCreationOptions& given, CreationObserver& observer) {
  const VoiceCreationOptions o = resolve_defaults(given);

  CreationState state = open_creation_state(o);
  const fs::path& work = o.work_dir;
  observer.line("work folder " + work.string() +
                (state.done.empty() ? "" : " (resuming after " + state.done.back() + ")"));
  double stage_start_elapsed = state.elapsed_seconds;
  auto clock_in = [&, last = Clock::now()]() mutable {
    state.elapsed_seconds += seconds_since(last);
    last = Clock::now();
  };
  auto finish_stage = [&](const std::string& stage) {
    clock_in();
    state.stage_seconds[stage] += state.elapsed_seconds - stage_start_elapsed;
    stage_start_elapsed = state.elapsed_seconds;
    state.done.push_back(stage);
    save_creation_state(work, state);
  };

  // Intake.
  IntakeReport intake;
  if (!state.finished("intake")) {
    observer.stage("intake",
                   "checking, trimming and levelling the recordings in " + o.data_dir.string());
    IntakeOptions io;
    io.data_dir = o.data_dir;
    io.out_dir = work / "corpus";
    io.language = o.espeak_voice;
    io.threads = o.threads;
    intake = run_intake(io);
    kernels::write_file_atomically(work / "intake.json", nlohmann::json(intake).dump(1) + "\n");
    for (const std::string& line : intake.skip_lines) observer.line(line);
    for (const std::string& line : intake.warnings) observer.line(line);
    std::istringstream table(format_intake_summary(intake));
    for (std::string line; std::getline(table, line);) observer.line(line);
    require_enough_audio(intake, o.minimum_minutes);
    finish_stage("intake");
  } else {
    std::ifstream in(work / "intake.json");
    intake = nlohmann::json::parse(in).get<IntakeReport>();
  }

  // Held-out prompts.
  if (!state.finished("split")) {
    observer.stage("split", "choosing the held-out prompts that will judge the voice");
    const auto rows = read_rows(work / "corpus" / "metadata.csv");
    std::vector<std::string> ids;
    for (const auto& row : rows) ids.push_back(row.first);
    std::vector<std::string> held;
    if (o.held_out_file.empty()) {
      held = choose_held_out(ids, o.seed);
    } else {
      std::sort(ids.begin(), ids.end());
      for (const std::string& id : read_lines(o.held_out_file)) {
        if (std::binary_search(ids.begin(), ids.end(), id))
          held.push_back(id);
        else
          observer.line(o.held_out_file.string() + ": \"" + id +
                        "\" is not among the recordings kept");
      }
      std::sort(held.begin(), held.end());
      if (held.empty())
        throw std::runtime_error(o.held_out_file.string() + ": no prompt to hold out");
    }
    std::vector<std::pair<std::string, std::string>> training, held_out;
    for (const auto& row : rows)
      (std::binary_search(held.begin(), held.end(), row.first) ? held_out : training)
          .push_back(row);
    write_split(work / "train", training);
    write_split(work / "held-out", held_out);
    std::string list;
    for (const std::string& id : held) list += id + "\n";
    kernels::write_file_atomically(work / "held-out.txt", list);
    observer.line(std::to_string(held.size()) + " prompts held out, " +
                  std::to_string(training.size()) + " to train on");
    finish_stage("split");
  }

  // Training: a few steps timed, the plan said, then the rest.
  train::AcousticTrainingOptions t;
  t.data_dir = work / "train";
  t.out_dir = work / "acoustic";
  t.language = o.espeak_voice;
  t.init_from = o.base_dir / "acoustic";
  t.architecture_from_init = true;
  t.seed = o.seed;
  t.device = o.device;
  t.batch_utterances = 8;
  t.checkpoint_every = 100;
  t.validate_every = 250;
  t.log_every = 50;
  t.loader_threads = o.threads;
  std::ofstream training_log(work / "training.log", std::ios::app);
  auto run_training = [&](int64_t steps,
                          const std::function<void(const train::TrainingProgress&)>& each) {
    t.steps = steps;
    t.resume = fs::exists(t.out_dir / "checkpoint.json");
    if (!t.resume) fs::remove_all(t.out_dir);
    t.progress = [&](const train::TrainingProgress& p) {
      each(p);
      clock_in();
      if (p.step % t.checkpoint_every == 0) save_creation_state(work, state);
    };
    return train::train_acoustic(t, training_log);
  };
  if (!state.plan) {
    observer.stage("plan", "timing a few training steps on this machine");
    PlanInputs plan_in;
    plan_in.budget_seconds = o.budget_minutes * 60.0;
    plan_in.fixed_steps = o.steps;
    plan_in.held_out_seconds = intake.seconds_of(read_lines(work / "held-out.txt"));
    plan_in.threads = o.threads;
    double seconds_per_step = 0.0;
    // A run stopped between the timed steps and the plan times them again from the start.
    fs::remove_all(t.out_dir);
    const auto probe_start = Clock::now();
    const int64_t probe = std::min<int64_t>(kProbeSteps, o.steps.value_or(kProbeSteps));
    run_training(probe,
                 [&](const train::TrainingProgress& p) { seconds_per_step = p.seconds_per_step; });
    plan_in.probe_steps = probe;
    plan_in.seconds_per_step = seconds_per_step;
    plan_in.load_seconds = std::max(0.0, seconds_since(probe_start) - probe * seconds_per_step);
    clock_in();
    plan_in.elapsed_seconds = state.elapsed_seconds;
    state.plan = plan_training(plan_in);
    finish_stage("plan");
  }
  const TrainingPlan& plan = *state.plan;
  observer.line(describe_plan(plan));
  if (!state.finished("training")) {
    observer.stage("training", "fine-tuning the base acoustic model on the recordings");
    const double after_training = plan.reserved_seconds;
    run_training(plan.steps, [&](const train::TrainingProgress& p) {
      const double left = (plan.steps - p.step) * p.seconds_per_step + after_training;
      observer.training(p, left / 60.0);
    });
    finish_stage("training");
  }

  if (!state.finished("pitch")) {
    observer.stage("pitch", "calibrating the pitch spread on the training recordings");
    train::PitchCalibrationOptions pc;
    pc.model_dir = t.out_dir;
    pc.data_dir = t.data_dir;
    pc.language = o.espeak_voice;
    pc.loader_threads = o.threads;
    pc.extra_stretch = kPitchExtraStretch;
    const train::PitchCalibration c = train::calibrate_pitch_spread(pc, training_log);
    char text[128];
    std::snprintf(text, sizeof text, "pitch spread %.2f (over %d recordings)", c.pitch_spread,
                  c.utterances);
    observer.line(text);
    finish_stage("pitch");
  }

  const fs::path packed = work / "voice";
  if (!state.finished("pack")) {
    observer.stage("pack", "assembling the voice with the shared vocoder");
    fs::remove_all(packed);
    engine::VoicePackSources sources;
    sources.acoustic = t.out_dir;
    sources.vocoder = o.vocoder_dir;
    sources.extra_files = {{work / "held-out.txt", "held-out.txt"},
                           {work / "training.log", "training/acoustic.log"},
                           {work / "intake.json", "training/intake.json"}};
    engine::VoiceManifest manifest;
    manifest.name = o.name;
    manifest.language = o.espeak_voice;
    manifest.languages = {o.language};
    manifest.speaker = o.speaker;
    manifest.sex = o.sex;
    manifest.licence = o.licence;
    manifest.source = o.source.empty() ? "recordings in " + o.data_dir.string() : o.source;
    manifest.description = o.description.empty() ? "Made by `tts voices create` from " +
                                                       std::to_string(intake.kept.size()) +
                                                       " recordings; see MODEL_CARD.md."
                                                 : o.description;
    manifest.pitch_shift = engine::PitchShiftMethod::kAudio;
    engine::pack_voice(packed, sources, manifest);
    finish_stage("pack");
  }

  CreatedVoice created;
  if (!state.finished("report")) {
    observer.stage("report", "judging the voice on its held-out prompts");
    ReportInputs ri;
    ri.voice_dir = packed;
    ri.held_out_dir = work / "held-out";
    ri.work_dir = work / "report";
    ri.espeak_voice = o.espeak_voice;
    ri.reference_mel_distance = reference_mel_distance(o.base_dir);
    ri.seed = o.seed;
    ri.threads = o.threads;
    created.report = judge_voice(ri, [&](const std::string& line) { observer.line(line); });
    kernels::write_file_atomically(packed / "report.json",
                                   nlohmann::json(created.report).dump(2) + "\n");
    finish_stage("report");
    // The card records the whole run's time, so it is written once the report's is known.
    write_model_card(packed / "MODEL_CARD.md", o, intake, plan, state, created.report);
    save_creation_state(work, state);
  } else if (fs::exists(packed / "report.json")) {
    std::ifstream in(packed / "report.json");
    created.report = nlohmann::json::parse(in).get<VoiceReport>();
  }

  if (!state.finished("install")) {
    observer.stage("install", "installing the voice in " + o.out_dir.string());
    install(packed, o.out_dir);
    finish_stage("install");
  } else if (fs::exists(o.out_dir / "report.json")) {
    std::ifstream in(o.out_dir / "report.json");
    created.report = nlohmann::json::parse(in).get<VoiceReport>();
  }
  created.folder = o.out_dir;
  created.minutes = state.elapsed_seconds / 60.0;
  return created;
}

}  // namespace tts::creation
