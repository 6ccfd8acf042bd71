#include "tts/voice_creation/model_card.h"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tts/kernels/atomic_file.h"
#include "tts/voice_creation/create_voice.h"

namespace tts::creation {

namespace {

std::string minutes(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f min", seconds / 60.0);
  return text;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

// The pitch spread in a model's acoustic.json, as text.
std::string pitch_spread_of(const std::filesystem::path& model) {
  std::ifstream in(model / "acoustic.json");
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("acoustic")) return "?";
  char text[16];
  std::snprintf(text, sizeof text, "%.2f", j["acoustic"].value("pitch_spread", 1.0));
  return text;
}

std::string verdict(const Target& t) {
  return !t.passed ? "not measured" : *t.passed ? "**PASS**" : "**FAIL**";
}

}  // namespace

std::string describe_machine() {
  std::ifstream in("/proc/cpuinfo");
  std::string model;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  if (model.empty()) model = "unknown CPU";
  const unsigned cores = std::thread::hardware_concurrency();
  return model + ", " + std::to_string(cores) + (cores == 1 ? " core" : " cores");
}

void write_model_card(const std::filesystem::path& path, const VoiceCreationOptions& o,
                      const IntakeReport& intake, const TrainingPlan& plan,
                      const CreationState& state, const VoiceReport& report) {
  std::ostringstream md;
  md << "# Model card: `" << o.name << "`\n\n"
     << "Made by `tts voices create` on " << today() << " from " << intake.kept.size()
     << " recordings (" << minutes(intake.seconds_kept()) << " of speech), in "
     << minutes(state.elapsed_seconds) << " of wall time on " << describe_machine()
     << (o.device.device == kernels::Device::kCuda ? " with a GPU" : "") << ".\n\n"
     << "Verdict on its held-out prompts: **" << (report.passed() ? "PASS" : "FAIL")
     << "** (the targets are below).\n\n";

  md << "## Recordings and licence\n\n"
     << "- Speaker: " << (o.speaker.empty() ? "not given" : o.speaker)
     << (o.sex.empty() ? "" : ", " + o.sex) << "; language " << o.language
     << " (phonemised by espeak-ng's `" << o.espeak_voice << "`).\n"
     << "- Source: " << (o.source.empty() ? o.data_dir.string() : o.source) << ".\n"
     << "- Licence of the voice: **" << o.licence << "**.\n"
     << "- Intake: " << intake.rows_read << " rows read, " << intake.kept.size() << " kept ("
     << minutes(intake.seconds_kept()) << "), trimmed, levelled and resampled to 16 kHz";
  std::size_t skipped = 0;
  for (const auto& [reason, count] : intake.skipped) skipped += count;
  if (skipped == 0) {
    md << "; none skipped.\n";
  } else {
    md << "; " << skipped << " skipped:";
    for (const auto& [reason, count] : intake.skipped) md << " " << reason << " " << count << ";";
    md.seekp(-1, std::ios::cur);
    md << " (each named in `training/intake.json`).\n";
  }
  if (!intake.warnings.empty())
    md << "- " << intake.warnings.size()
       << " kept with a warning (recorded below 16 kHz, or in several channels mixed down).\n";
  md << "- Held out of training, to judge the voice: the " << report.prompts
     << " prompts in `held-out.txt` (" << minutes(report.seconds) << ").\n\n";

  md << "## How it was made\n\n"
     << "- Acoustic model: the engine's base (`" << o.base_dir.string() << "`) fine-tuned "
     << plan.steps << " steps of 8 recordings (seed " << o.seed << ", "
     << (plan.fixed ? "steps given"
                    : "steps planned for a budget of " + minutes(plan.budget_seconds))
     << ", "
     << (plan.seconds_per_step > 0 ? std::to_string(plan.seconds_per_step).substr(0, 4) : "?")
     << " s a step), then its pitch spread calibrated on the training recordings and fitted "
        "to their F0 spread by listening to the voice speak the prompts training validated on: "
     << pitch_spread_of(path.parent_path() / "acoustic") << ". Log: `training/acoustic.log`.\n"
     << "- Vocoder: starting from the shared WaveNet (`" << o.vocoder_dir.string() << "`), "
     << (state.vocoder ? state.vocoder->describe() : std::string("the shared vocoder as it is"))
     << ".\n\n"
     << "| stage | wall time |\n|---|---:|\n";
  for (const std::string& stage : state.done)
    md << "| " << stage << " | "
       << minutes(state.stage_seconds.count(stage) ? state.stage_seconds.at(stage) : 0.0) << " |\n";
  md << "| all | " << minutes(state.elapsed_seconds) << " |\n\n";

  md << "## Quality\n\n"
     << "Measured on the held-out prompts: as recorded, copy-synthesised through the vocoder, "
        "and spoken by the voice from their text (seed "
     << o.seed << "). Praat: " << report.praat << "."
     << (report.words_judged ? " Words: " + report.recogniser +
                                   ", the bundled voice `default` "
                                   "speaking the same prompts beside it."
                             : std::string())
     << " Figures also in `report.json`.\n\n"
     << "| target | figures | verdict |\n|---|---|---|\n";
  for (const Target& t : report.targets)
    md << "| " << t.name << " | " << t.figures << " | " << verdict(t) << " |\n";
  md << "\n## Using it\n\n```sh\ntts say --voice " << o.name << " \"…\"\n```\n";
  kernels::write_file_atomically(path, md.str());
}

}  // namespace tts::creation
