// How long to train a new voice: the command times a few steps of its own training on this
// machine, then gives the fine-tuning the steps that fit the budget after everything else the
// command still has to do. The vocoder's fine-tuning is planned the same way, later, in what the
// acoustic model's training left of the budget.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tts::creation {

// Steps timed before the plan is made (they count toward the training).
constexpr int64_t kProbeSteps = 20;
// The fewest and most steps a plan gives. Below the fewest the voice is still the base's speaker;
// past the most the validation loss barely moves and the words heard do not improve, while the
// vocoder's fine-tuning, which takes what the budget leaves, still helps (docs/voice-creation.md).
constexpr int64_t kMinimumSteps = 200;
constexpr int64_t kMaximumSteps = 1500;

struct PlanInputs {
  double budget_seconds = 1800.0;
  double elapsed_seconds = 0.0;   // spent so far (intake, the timed steps)
  double seconds_per_step = 0.0;  // measured
  double load_seconds = 0.0;      // reading and featurising the corpus, once (measured)
  double held_out_seconds = 0.0;  // audio the report synthesises twice
  int64_t probe_steps = kProbeSteps;
  int threads = 2;
  bool judge_words = false;  // an English voice: the report also has the recogniser listen
  std::optional<int64_t> fixed_steps;  // given instead of the budget
};

struct TrainingPlan {
  int64_t steps = 0;
  double seconds_per_step = 0.0;
  double training_seconds = 0.0;  // the steps left after the timed ones
  double reserved_seconds = 0.0;  // what comes after training: calibration, report, packing
  // The budget left over once the steps stop at kMaximumSteps: the vocoder's fine-tuning may
  // take it (vocoder_fit.h); 0 when the steps are given or fill the budget.
  double leftover_seconds = 0.0;
  double budget_seconds = 0.0, elapsed_seconds = 0.0;
  bool fixed = false;        // steps given, not planned
  bool over_budget = false;  // even kMinimumSteps do not fit the budget
};
void to_json(nlohmann::json& j, const TrainingPlan& p);
void from_json(const nlohmann::json& j, TrainingPlan& p);

TrainingPlan plan_training(const PlanInputs& in);

// "1,400 steps of 0.62 s (14.5 min), then about 3.0 min for calibration and the report: about
// 27.9 min in all, within the 30 min budget"
std::string describe_plan(const TrainingPlan& plan);

// Steps of the vocoder's fine-tuning timed before its plan is made (they count toward it), and
// the fewest and most it is given: the vocoder's learning rate warms up over its first 100
// steps, and a speaker the shared vocoder never heard was still copied better at 3,000 than at
// 1,500 (docs/voice-creation.md).
constexpr int64_t kVocoderProbeSteps = 10;
constexpr int64_t kMinimumVocoderSteps = 300;
constexpr int64_t kMaximumVocoderSteps = 3000;

struct VocoderPlanInputs {
  double budget_seconds = 1800.0;
  double elapsed_seconds = 0.0;   // spent so far (everything up to the vocoder's timed steps)
  double seconds_per_step = 0.0;  // measured; 0 before the steps are timed
  double load_seconds = 0.0;      // reading the corpus, once (measured)
  double held_out_seconds = 0.0;  // audio the judging copies twice and the report twice more
  int64_t probe_steps = kVocoderProbeSteps;
  int threads = 2;
  bool judge_words = false;  // an English voice: the report also has the recogniser listen
};

struct VocoderPlan {
  int64_t steps = 0;  // 0: the shared vocoder as it is
  std::string why;    // when 0, why
};

// Whether what the budget leaves for the vocoder's fine-tuning, once the report and the judging
// of both vocoders are set aside, could hold its fewest steps: if not, they are not even timed.
bool vocoder_worth_timing(const VocoderPlanInputs& in);

// The steps that fit, or 0 and why (always 0 before the steps are timed).
VocoderPlan plan_vocoder(const VocoderPlanInputs& in);

}  // namespace tts::creation
