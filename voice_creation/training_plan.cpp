#include "tts/voice_creation/training_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tts::creation {

namespace {

// Seconds of synthesis per second of held-out audio for one thread, copy-synthesis and the voice
// together, with room to spare: the bundled vocoder's size samples at about 0.25 on one core.
constexpr double kReportRealTimeFactor = 0.8;
constexpr double kReportOverheadSeconds = 20.0;  // Praat, scoring, packing
constexpr double kBudgetMargin = 0.95;           // the plan aims this far into the budget
constexpr double kPitchTrials = 3.0;             // the pitch fit's trials, typically (pitch_fit.h)
// For an English voice, seconds per second of held-out audio for one thread: the bundled voice
// speaking the prompts (about 0.3) and pocketsphinx hearing them three times over (recordings, the
// voice, the bundled voice: about 0.27 each on one core of an AMD EPYC).
constexpr double kWordsRealTimeFactor = 1.2;
// Below this, the vocoder's steps are not even timed: what is left could not hold the fewest.
constexpr double kVocoderMinimumSeconds = 120.0;

double seconds_left_for_vocoder(const VocoderPlanInputs& in) {
  const double per_thread = in.held_out_seconds / std::max(1, in.threads);
  // What comes after the vocoder, as plan_training reserves it: the pitch fit (the corpus read
  // once more, taken to cost what the vocoder's read does, and its trials) and the report.
  const double pitch =
      in.load_seconds + kReportOverheadSeconds + kPitchTrials * kReportRealTimeFactor * per_thread;
  const double report =
      kReportOverheadSeconds +
      (kReportRealTimeFactor + (in.judge_words ? kWordsRealTimeFactor : 0.0)) * per_thread;
  // The copy-synthesis of the held-out prompts through both vocoders.
  const double judging = kReportOverheadSeconds + 2.0 * kReportRealTimeFactor * per_thread;
  return in.budget_seconds * kBudgetMargin - in.elapsed_seconds - pitch - report - judging;
}

}  // namespace

void to_json(nlohmann::json& j, const TrainingPlan& p) {
  j = {{"steps", p.steps},
       {"seconds_per_step", p.seconds_per_step},
       {"training_seconds", p.training_seconds},
       {"reserved_seconds", p.reserved_seconds},
       {"leftover_seconds", p.leftover_seconds},
       {"budget_seconds", p.budget_seconds},
       {"elapsed_seconds", p.elapsed_seconds},
       {"fixed", p.fixed},
       {"over_budget", p.over_budget}};
}

void from_json(const nlohmann::json& j, TrainingPlan& p) {
  j.at("steps").get_to(p.steps);
  j.at("seconds_per_step").get_to(p.seconds_per_step);
  j.at("training_seconds").get_to(p.training_seconds);
  j.at("reserved_seconds").get_to(p.reserved_seconds);
  p.leftover_seconds = j.value("leftover_seconds", 0.0);  // absent from older work folders
  j.at("budget_seconds").get_to(p.budget_seconds);
  j.at("elapsed_seconds").get_to(p.elapsed_seconds);
  j.at("fixed").get_to(p.fixed);
  j.at("over_budget").get_to(p.over_budget);
}

TrainingPlan plan_training(const PlanInputs& in) {
  TrainingPlan plan;
  plan.seconds_per_step = in.seconds_per_step;
  plan.budget_seconds = in.budget_seconds;
  plan.elapsed_seconds = in.elapsed_seconds;
  // After training: the corpus is read again by the resumed run and by the pitch calibration,
  // the pitch fit has the voice speak about as much as the held-out prompts hold a few times
  // over, then the report synthesises the held-out prompts twice, on `threads` threads, and for
  // an English voice has them spoken by the bundled voice and heard by the recogniser.
  const double report_factor =
      (1.0 + kPitchTrials) * kReportRealTimeFactor + (in.judge_words ? kWordsRealTimeFactor : 0.0);
  plan.reserved_seconds = 2.0 * in.load_seconds + kReportOverheadSeconds +
                          report_factor * in.held_out_seconds / std::max(1, in.threads);
  if (in.fixed_steps) {
    plan.fixed = true;
    plan.steps = std::max(*in.fixed_steps, in.probe_steps);
  } else {
    const double left =
        in.budget_seconds * kBudgetMargin - in.elapsed_seconds - plan.reserved_seconds;
    const double affordable = in.seconds_per_step > 0 ? left / in.seconds_per_step : 0.0;
    plan.steps = std::clamp<int64_t>(static_cast<int64_t>(std::floor(affordable)) + in.probe_steps,
                                     kMinimumSteps, kMaximumSteps);
    plan.over_budget = affordable + static_cast<double>(in.probe_steps) < kMinimumSteps;
  }
  plan.training_seconds = static_cast<double>(plan.steps - in.probe_steps) * in.seconds_per_step;
  if (!plan.fixed)
    plan.leftover_seconds = std::max(0.0, in.budget_seconds * kBudgetMargin - in.elapsed_seconds -
                                              plan.reserved_seconds - plan.training_seconds);
  return plan;
}

std::string describe_plan(const TrainingPlan& p) {
  char text[400];
  const double total = p.elapsed_seconds + p.training_seconds + p.reserved_seconds;
  std::snprintf(text, sizeof text,
                "plan: %lld training steps of %.2f s (%.1f min), then about %.1f min for the pitch "
                "fit and the report: about %.1f min in all%s",
                static_cast<long long>(p.steps), p.seconds_per_step, p.training_seconds / 60.0,
                p.reserved_seconds / 60.0, total / 60.0,
                p.fixed ? " (steps given)"
                : p.over_budget
                    ? "; over the budget: even the fewest steps that make a voice do not fit it"
                    : "");
  std::string out = text;
  if (!p.fixed && !p.over_budget) {
    std::snprintf(text, sizeof text, ", within the %.0f min budget", p.budget_seconds / 60.0);
    out += text;
  }
  if (p.leftover_seconds >= kVocoderMinimumSeconds) {
    std::snprintf(text, sizeof text,
                  "; the %.1f min left of it go to fine-tuning the vocoder, if it helps",
                  p.leftover_seconds / 60.0);
    out += text;
  }
  return out;
}

bool vocoder_worth_timing(const VocoderPlanInputs& in) {
  return seconds_left_for_vocoder(in) >= kVocoderMinimumSeconds;
}

VocoderPlan plan_vocoder(const VocoderPlanInputs& in) {
  const double left = seconds_left_for_vocoder(in) - in.load_seconds;
  VocoderPlan plan;
  if (left < kVocoderMinimumSeconds || in.seconds_per_step <= 0) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "the budget leaves %.1f min, too little to fine-tune it (--budget, or "
                  "--vocoder-steps)",
                  std::max(0.0, left) / 60.0);
    plan.why = text;
    return plan;
  }
  const int64_t affordable =
      static_cast<int64_t>(std::floor(left / in.seconds_per_step)) + in.probe_steps;
  if (affordable < kMinimumVocoderSteps) {
    char text[240];
    std::snprintf(text, sizeof text,
                  "the budget leaves %.1f min, time for %lld of the %lld steps of %.2f s a "
                  "fine-tune needs (--budget, or --vocoder-steps)",
                  left / 60.0, static_cast<long long>(affordable),
                  static_cast<long long>(kMinimumVocoderSteps), in.seconds_per_step);
    plan.why = text;
    return plan;
  }
  plan.steps = std::min(affordable, kMaximumVocoderSteps);
  return plan;
}

}  // namespace tts::creation
