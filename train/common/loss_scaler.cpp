#include "tts/train/loss_scaler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tts/kernels/optimizer.h"

namespace tts::train {

namespace {

bool power_of_two_in_range(float scale) {
  if (!(scale >= LossScaler::kMinScale && scale <= LossScaler::kMaxScale)) return false;
  int exponent = 0;
  return std::frexp(scale, &exponent) == 0.5f;
}

void check_scale(float scale, const char* what) {
  if (!power_of_two_in_range(scale))
    throw std::invalid_argument(std::string(what) + " must be a power of two from 1 to 2^24 " +
                                "(16777216), not " + std::to_string(scale));
}

}  // namespace

bool loss_scaling_enabled(const LossScalingOptions& options, kernels::GemmPrecision precision) {
  if (options.mode == LossScaling::kAuto) return precision == kernels::GemmPrecision::kFp16;
  return options.mode == LossScaling::kDynamic;
}

const char* to_string(LossScaling mode) {
  switch (mode) {
    case LossScaling::kDynamic:
      return "dynamic";
    case LossScaling::kOff:
      return "off";
    case LossScaling::kAuto:
      break;
  }
  return "auto";
}

LossScaling parse_loss_scaling(const std::string& name) {
  if (name == "dynamic") return LossScaling::kDynamic;
  if (name == "off") return LossScaling::kOff;
  throw std::invalid_argument("loss scaling must be dynamic or off, not '" + name + "'");
}

nlohmann::json loss_scale_json(const LossScaleState& state) {
  return {{"scale", state.scale}, {"good_steps", state.good_steps}};
}

LossScaleState read_loss_scale(const nlohmann::json& j) {
  const LossScaleState state{j.at("scale").get<float>(), j.at("good_steps").get<int64_t>()};
  LossScaler({}).restore(state);  // checks the values
  return state;
}

LossScaler::LossScaler(const LossScalingOptions& options) : growth_steps_(options.growth_steps) {
  check_scale(options.initial_scale, "the initial loss scale (--loss-scale-init)");
  if (options.growth_steps < 1)
    throw std::invalid_argument("--loss-scale-growth-steps must be at least 1, not " +
                                std::to_string(options.growth_steps));
  state_.scale = options.initial_scale;
}

void LossScaler::restore(const LossScaleState& state) {
  check_scale(state.scale, "the checkpoint's loss scale");
  if (state.good_steps < 0)
    throw std::invalid_argument("the checkpoint's count of good loss-scaled steps is negative (" +
                                std::to_string(state.good_steps) + ")");
  state_ = state;
}

bool LossScaler::unscale(kernels::ParameterSet& gradients) const {
  const float* g = gradients.data();
  if (!std::all_of(g, g + gradients.size(), [](float x) { return std::isfinite(x); })) return false;
  kernels::scale(gradients.data(), gradients.size(), 1.0f / state_.scale);  // exact: 2^-k
  return true;
}

LossScaler::Change LossScaler::update(bool finite) {
  if (!finite) {
    state_.good_steps = 0;
    if (state_.scale <= kMinScale) return Change::kNone;  // already 1: nothing left to back off
    state_.scale /= 2.0f;
    return Change::kBackedOff;
  }
  if (++state_.good_steps < growth_steps_) return Change::kNone;
  state_.good_steps = 0;
  if (state_.scale >= kMaxScale) return Change::kNone;
  state_.scale *= 2.0f;
  return Change::kGrew;
}

std::optional<LossScaleState> start_loss_scaling(const LossScalingOptions& options,
                                                 kernels::GemmPrecision precision,
                                                 const std::optional<LossScaleState>& resumed,
                                                 std::ostream& log) {
  if (!loss_scaling_enabled(options, precision)) return std::nullopt;
  LossScaler scaler(options);  // checks the options
  if (resumed) {
    scaler.restore(*resumed);
    log << "loss scaling: dynamic, resumed at scale " << scaler.scale() << " ("
        << scaler.state().good_steps << " good steps of " << options.growth_steps << ")\n";
  } else {
    log << "loss scaling: dynamic, from scale " << scaler.scale() << ", doubled after "
        << options.growth_steps << " good steps\n";
  }
  return scaler.state();
}

bool finish_scaled_step(const LossScalingOptions& options, LossScaleState& state,
                        kernels::ParameterSet& gradients, int64_t step, std::ostream& log) {
  LossScaler scaler(options);
  scaler.restore(state);
  const float was = scaler.scale();
  const bool finite = scaler.unscale(gradients);
  const LossScaler::Change change = scaler.update(finite);
  state = scaler.state();
  if (!finite) {
    log << "step " << step << ": gradients not finite at loss scale " << was
        << ": step skipped (weights, Adam moments and EMA unchanged), "
        << (change == LossScaler::Change::kBackedOff ? "scale halved to " : "scale stays at ")
        << state.scale << std::endl;
  } else if (change == LossScaler::Change::kGrew) {
    log << "step " << step << ": loss scale doubled to " << state.scale << " after "
        << options.growth_steps << " good steps" << std::endl;
  }
  return finite;
}

}  // namespace tts::train
