#include "acoustic_task.h"

#include <algorithm>
#include <sstream>

#include "tts/acoustic/alignment_targets.h"
#include "tts/acoustic/model_files.h"
#include "tts/kernels/seed.h"
#include "tts/train/acoustic_evaluation.h"

namespace tts::train {

uint64_t restart_seed(uint64_t seed, int k) {
  return k == 0 ? seed : kernels::splitmix64(seed, static_cast<uint64_t>(k));
}

AcousticTask::AcousticTask(AcousticTaskParts parts)
    : p_(std::move(parts)), ema_model_(p_.state.config) {}

StepLosses AcousticTask::accumulate(const kernels::ParameterSet& weights, int64_t step,
                                    kernels::ParameterSet& gradients, float loss_scale) {
  const BatchLayout& layout = p_.layout;
  const uint64_t seed = p_.state.seed;
  p_.model.parameters() = weights;
  const bool flat_start = step < p_.options.uniform_alignment_steps;
  std::vector<acoustic::AcousticBatch> micro;
  std::vector<std::vector<int>> durations(static_cast<std::size_t>(layout.accumulate));
  for (int k = 0; k < layout.accumulate; ++k) {
    micro.push_back(make_speaker_balanced_batch_slice(
        p_.training, p_.speakers, layout.global(), seed, step, layout.first_item(k), layout.micro));
    if (flat_start)  // empty: searched
      durations[static_cast<std::size_t>(k)] =
          acoustic::flat_start_durations(micro.back(), p_.settings);
  }
  // A step of several micro-batches normalises each one's losses by the whole batch's counts.
  // The pitch and energy losses are means over the tokens that have frames, which alignment
  // search decides, so then every micro-batch is aligned first (the prior reads the embedding
  // alone, so this is the search forward() makes).
  acoustic::LossNormalisers normalisers;  // 0: the batch's own, when it is the whole step
  double step_frames = 0.0;
  if (layout.micro_batches() > 1) {
    double counts[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < layout.accumulate; ++k) {
      const acoustic::AcousticBatch& b = micro[static_cast<std::size_t>(k)];
      counts[0] += static_cast<double>(b.mel.cols());
      counts[1] += static_cast<double>(b.ids.size());
      if (!p_.state.config.pitch_energy) continue;
      const std::vector<int> d =
          flat_start ? durations[static_cast<std::size_t>(k)] : p_.pass.align(b);
      counts[2] +=
          static_cast<double>(std::count_if(d.begin(), d.end(), [](int n) { return n > 0; }));
    }
    p_.ranks.sum(counts, 3);
    normalisers = {counts[0], counts[1], counts[2]};
    step_frames = counts[0];
  } else {
    step_frames = static_cast<double>(micro.front().mel.cols());
  }
  acoustic::AcousticLosses losses;
  for (int k = 0; k < layout.accumulate; ++k) {
    // A dropout seed of its own for every (run seed, step, micro-batch), so a resumed run draws
    // the same masks; the first micro-batch's is the whole batch's of a run without them.
    const uint64_t dropout_seed = restart_seed((seed << 32) ^ static_cast<uint64_t>(step),
                                               layout.rank * layout.accumulate + k);
    const acoustic::AcousticLosses l =
        p_.pass.forward(micro[static_cast<std::size_t>(k)], durations[static_cast<std::size_t>(k)],
                        dropout_seed, normalisers);
    p_.pass.backward(gradients, loss_scale);  // adds
    losses.mel += l.mel, losses.prior += l.prior, losses.duration += l.duration;
    losses.pitch += l.pitch, losses.energy += l.energy, losses.total += l.total;
  }
  // The total first: the loop checks it is finite. The losses are already shares of the mean.
  return {{losses.total, losses.mel, losses.prior, losses.duration, losses.pitch, losses.energy},
          step_frames};
}

acoustic::AcousticLosses AcousticTask::losses_of(const std::vector<double>& values) {
  acoustic::AcousticLosses l;
  l.total = values.at(0), l.mel = values.at(1), l.prior = values.at(2);
  l.duration = values.at(3), l.pitch = values.at(4), l.energy = values.at(5);
  return l;
}

float AcousticTask::learning_rate(int64_t step) const {
  const AcousticTrainingOptions& o = p_.options;
  const double warm =
      o.warmup_steps > 0 ? std::min(1.0, static_cast<double>(step) / o.warmup_steps) : 1.0;
  return static_cast<float>(o.adam.learning_rate * warm);
}

void AcousticTask::before_update(kernels::ParameterSet& gradients) {
  // A frozen tensor's gradient is zero, so Adam's moments for it stay zero and so does its step.
  for (const auto& [offset, size] : p_.frozen) std::fill_n(gradients.data() + offset, size, 0.0f);
}

void AcousticTask::after_update(const OptimizerTensors& tensors) {
  // Adam leaves a frozen tensor's weights exactly as they were; the EMA's d·w + (1 − d)·w need
  // not round back to w, so it is given them.
  for (const auto& [offset, size] : p_.frozen)
    std::copy_n(tensors.weights.data() + offset, size, tensors.ema.data() + offset);
}

double AcousticTask::validate(const kernels::ParameterSet& ema, int64_t /*step*/) {
  ema_model_.parameters() = ema;
  return validation_mel_loss(ema_model_, p_.held_out_settings, p_.validation);
}

void AcousticTask::save() {
  save_acoustic_checkpoint(p_.options.out_dir, p_.state);
  ema_model_.parameters() = p_.state.ema;
  acoustic::save_acoustic_model(p_.options.out_dir, ema_model_, p_.options.features, p_.symbols);
}

std::string AcousticTask::describe_losses(const std::vector<double>& values) const {
  const acoustic::AcousticLosses l = losses_of(values);
  std::ostringstream line;
  line.setf(std::ios::fixed);
  line.precision(4);
  line << l.total << " (mel " << l.mel << " prior " << l.prior << " dur " << l.duration;
  if (p_.state.config.pitch_energy) line << " pitch " << l.pitch << " energy " << l.energy;
  line << ")";
  return line.str();
}

std::string AcousticTask::describe_validation(double value) const {
  std::ostringstream text;
  text.setf(std::ios::fixed);
  text.precision(4);
  text << "val mel " << value;
  return text.str();
}

}  // namespace tts::train
