// `tts voices create NAME --data DIR`: a folder of one person's recordings in, an installed voice
// and its measured report out (tts/voice_creation/create_voice.h). Run again with the same
// arguments to resume.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "device_options.h"
#include "tts/train/training_loop.h"
#include "tts/voice_creation/create_voice.h"

namespace tts::cli {

namespace {

// Progress on stderr: on a terminal the training step rewrites one line; elsewhere (a log file, a
// pipe) a plain line every 50 steps.
class TerminalObserver : public creation::CreationObserver {
 public:
  TerminalObserver() : terminal_(isatty(STDERR_FILENO) == 1) {}
  ~TerminalObserver() override { end_progress(); }

  void stage(const std::string& name, const std::string& what) override {
    end_progress();
    std::cerr << "== " << name << ": " << what << std::endl;
  }
  void line(const std::string& text) override {
    end_progress();
    std::cerr << "   " << text << std::endl;
  }
  void training(const train::TrainingProgress& p, double minutes_left) override {
    char text[200];
    std::snprintf(
        text, sizeof text, "   step %lld/%lld  loss %.4f%s  %.2f s/step  about %.1f min left",
        static_cast<long long>(p.step), static_cast<long long>(p.steps), p.loss,
        p.validation ? ("  validation mel " + std::to_string(*p.validation).substr(0, 6)).c_str()
                     : "",
        p.seconds_per_step, minutes_left);
    if (terminal_) {
      std::cerr << "\r" << text << "\033[K" << std::flush;
      open_line_ = true;
    } else if (p.step % 50 == 0 || p.step == p.steps) {
      std::cerr << text << std::endl;
    }
  }

 private:
  void end_progress() {
    if (open_line_) std::cerr << "\n";
    open_line_ = false;
  }
  bool terminal_;
  bool open_line_ = false;
};

// Progress for a program (tts serve's studio runs this command as its voice job): one JSON object a
// line on stdout, flushed as it happens. Events: {"event":"stage","stage","what","index","stages"},
// {"event":"line","text"}, {"event":"training","step","steps","fraction","minutes_left","loss"},
// then {"event":"done","folder","verdict","targets":[{"name","passed","figures"}],"minutes"} or
// {"event":"error","message"}.
class JsonObserver : public creation::CreationObserver {
 public:
  static void emit(const nlohmann::json& event) {
    std::cout << event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  }
  void stage(const std::string& name, const std::string& what) override {
    const std::vector<std::string>& stages = creation::creation_stages();
    const auto found = std::find(stages.begin(), stages.end(), name);
    emit({{"event", "stage"},
          {"stage", name},
          {"what", what},
          {"index", found == stages.end() ? 0 : found - stages.begin()},
          {"stages", stages.size()}});
  }
  void line(const std::string& text) override { emit({{"event", "line"}, {"text", text}}); }
  void training(const train::TrainingProgress& p, double minutes_left) override {
    emit({{"event", "training"},
          {"step", p.step},
          {"steps", p.steps},
          {"fraction", p.steps > 0 ? static_cast<double>(p.step) / p.steps : 0.0},
          {"minutes_left", minutes_left},
          {"loss", p.loss}});
  }
};

void print_json_summary(const creation::CreatedVoice& v) {
  nlohmann::json targets = nlohmann::json::array();
  for (const creation::Target& t : v.report.targets)
    targets.push_back({{"name", t.name},
                       {"passed", t.passed ? nlohmann::json(*t.passed) : nlohmann::json()},
                       {"figures", t.figures}});
  JsonObserver::emit({{"event", "done"},
                      {"folder", v.folder.string()},
                      {"verdict", v.report.passed() ? "PASS" : "FAIL"},
                      {"prompts", v.report.prompts},
                      {"targets", targets},
                      {"minutes", v.minutes}});
}

void print_summary(const creation::VoiceCreationOptions& o, const creation::CreatedVoice& v) {
  std::printf("\nvoice \"%s\" is ready: %s (%.1f minutes in all)\n", o.name.c_str(),
              v.folder.string().c_str(), v.minutes);
  std::printf("verdict on its %d held-out prompts: %s\n", v.report.prompts,
              v.report.passed() ? "PASS" : "FAIL");
  for (const creation::Target& t : v.report.targets)
    std::printf("  %-13s %s: %s\n",
                !t.passed   ? "NOT MEASURED"
                : *t.passed ? "PASS"
                            : "FAIL",
                t.name.c_str(), t.figures.c_str());
  std::printf("report: %s\nspeak with it: tts say --voice %s \"Hello.\"\n",
              (v.folder / "MODEL_CARD.md").string().c_str(), o.name.c_str());
  std::fflush(stdout);
}

}  // namespace

void register_voices_create(CLI::App& voices, int& exit_code) {
  auto o = std::make_shared<creation::VoiceCreationOptions>();
  auto steps = std::make_shared<int64_t>(0);
  auto vocoder_steps = std::make_shared<int64_t>(-1);
  auto restart = std::make_shared<bool>(false);
  auto progress_json = std::make_shared<bool>(false);
  CLI::App* cmd = voices.add_subcommand(
      "create", "Make a voice from a folder of one person's recordings (resumes when run again)");
  cmd->add_option("name", o->name, "The voice's name")->required();
  cmd->add_option("--data", o->data_dir,
                  "The recordings: an LJSpeech folder (metadata.csv, wavs/) or audio files each "
                  "with a same-named .txt")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--lang", o->language, "BCP 47 tag of the language spoken (en-US, fr-CA, …)")
      ->capture_default_str();
  cmd->add_option("--espeak-voice", o->espeak_voice,
                  "The espeak-ng voice that phonemises it (default: the one --lang names)");
  cmd->add_option("--speaker", o->speaker, "Who speaks");
  cmd->add_option("--sex", o->sex, "The speaker's sex")->check(CLI::IsMember({"female", "male"}));
  cmd->add_option("--licence", o->licence, "The voice's licence (SPDX)")->capture_default_str();
  cmd->add_option("--source", o->source, "Where the recordings came from");
  cmd->add_option("--description", o->description,
                  "One line on the voice for `tts voices` (default: how it was made)");
  cmd->add_option("--budget", o->budget_minutes,
                  "Wall minutes on this machine, everything included; training gets what is left")
      ->check(CLI::Range(0.1, 10000.0))
      ->capture_default_str();
  cmd->add_option("--steps", *steps, "Train exactly this many steps instead (ignores --budget)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--vocoder-steps", *vocoder_steps,
                  "Fine-tune the vocoder exactly this many steps (0: never) instead of in what "
                  "the budget leaves")
      ->check(CLI::NonNegativeNumber);
  add_device_choice_options(*cmd, o->device, "Where training runs");
  cmd->add_option("--out", o->out_dir,
                  "The voice's folder (default: NAME in ~/.local/share/tts/voices)");
  cmd->add_option("--work", o->work_dir,
                  "Where the stages keep their work (default: ~/.cache/tts/voices-create/NAME)");
  cmd->add_option("--base", o->base_dir, "The base to fine-tune (default: base/ of the voice path)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--vocoder", o->vocoder_dir,
                  "The vocoder (default: shared-vocoder/ of the voice path)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--held-out", o->held_out_file,
                  "Hold out these prompts (one id a line) instead of a seeded choice")
      ->check(CLI::ExistingFile);
  cmd->add_option("--seed", o->seed, "Seed of the held-out choice, training and the report")
      ->capture_default_str()
      ->check(seed_validator());
  cmd->add_option("--min-minutes", o->minimum_minutes, "Refuse less usable speech than this")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Threads for reading audio and the report")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_flag("--restart", *restart, "Discard the work of an earlier run and begin again");
  cmd->add_flag("--progress-json", *progress_json,
                "Progress as one JSON object a line on stdout (stage, training step, minutes left, "
                "then the verdict), for programs");
  cmd->callback([o, steps, vocoder_steps, restart, progress_json, &exit_code] {
    if (*steps > 0) o->steps = *steps;
    if (*vocoder_steps >= 0) o->vocoder_steps = *vocoder_steps;
    TerminalObserver terminal;
    JsonObserver json;
    creation::CreationObserver& observer =
        *progress_json ? static_cast<creation::CreationObserver&>(json) : terminal;
    auto fail = [&](const std::exception& e, int code) {
      std::cerr << "tts voices create: " << e.what() << "\n";
      if (*progress_json) JsonObserver::emit({{"event", "error"}, {"message", e.what()}});
      exit_code = code;
    };
    try {
      if (*restart) {
        std::filesystem::remove_all(creation::resolve_defaults(*o).work_dir);
      }
      const creation::CreatedVoice voice = creation::create_voice(*o, observer);
      if (*progress_json)
        print_json_summary(voice);
      else
        print_summary(*o, voice);
      exit_code = kExitOk;
    } catch (const std::invalid_argument& e) {
      fail(e, kExitUsage);
    } catch (const std::exception& e) {
      fail(e, kExitFailure);
    }
  });
}

}  // namespace tts::cli
