// Training the WaveNet vocoder: the loop, its schedule, validation, and checkpoints with exact
// resume.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "tts/kernels/device.h"
#include "tts/kernels/mel.h"
#include "tts/kernels/optimizer.h"
#include "tts/train/communicator.h"
#include "tts/train/loss_scaler.h"
#include "tts/train/training_loop.h"
#include "tts/vocoder/config.h"

namespace tts::train {

struct VocoderTrainingOptions {
  std::filesystem::path data_dir, out_dir;
  vocoder::WaveNetConfig config;
  kernels::MelConfig features;  // sample rate, hop and mel count must match `config`
  int64_t steps = 1000;         // total steps (a resumed run continues up to this number)
  uint64_t seed = 1;
  bool resume = false;
  // When set (and not resuming): start from this exported vocoder's weights (OUT of an earlier run,
  // or a voice's vocoder/ folder) instead of random ones, with a fresh optimiser: fine-tuning.
  // With architecture_from_init the run takes its config and features (`--init-from` without
  // `--config`); otherwise they must equal `config` and `features`.
  std::filesystem::path init_from;
  bool architecture_from_init = false;
  int batch_segments = 4;  // crops per micro-batch
  int batch_length = 8000;
  // Micro-batches whose gradients are summed before each optimiser step (--accumulate): a step's
  // batch is world size × accumulate × batch_segments crops, drawn and normalised as one batch of
  // that size (tts/train/batch_layout.h), with the memory of one micro-batch.
  int accumulate = 1;
  // The ranks training together (data parallel: tts/train/world.h); nullptr: this process alone.
  // Every rank loads the corpus; only rank 0 writes files and the log. A resume reads OUT on every
  // rank, so OUT must be one folder that all of them see.
  Communicator* communicator = nullptr;
  kernels::AdamSettings adam{};
  int64_t warmup_steps = 200;          // learning rate ramps up linearly over these steps
  double lr_halving_steps = 100000.0;  // then halves every this many steps
  float clip_norm = 1.0f;              // global gradient norm clip
  float ema_decay = 0.999f;            // weights used for synthesis are this moving average
  int64_t log_every = 10;
  ProgressCallback progress;  // after each step (rank 0): tts/train/training_loop.h
  int64_t validate_every = 200;
  int64_t checkpoint_every = 200;
  double validation_audio_seconds = 1.0;  // of the first held-out clip, sampled at validation
  int loader_threads = 2;
  int compute_threads = 1;  // threads for each GEMM (OpenBLAS)
  // Where the forward and backward passes run and the GEMMs' precision there (bf16 on CUDA only);
  // the optimiser, validation and checkpoints stay on the CPU, so a run may move between devices
  // on --resume.
  kernels::DeviceChoice device;
  // Dynamic loss scaling (tts/train/loss_scaler.h): by default on with --precision fp16 only.
  LossScalingOptions loss_scaling;
  // When set: ID.npy frames (`tts train aligned-mels`) that training crops take instead of the
  // recording's own with probability predicted_share (tts/train/predicted_mels.h).
  std::filesystem::path predicted_mels_dir;
  double predicted_share = 0.5;
};

struct VocoderTrainingSummary {
  int64_t first_step = 0, last_step = 0;  // steps run by this call: (first_step, last_step]
  // A resume whose checkpoint already reached `steps`: nothing was trained or written.
  bool already_trained = false;
  double last_loss = 0.0;
  std::optional<double> last_validation_loss;
  double samples_per_second = 0.0;
};

// Runs training; progress lines and warnings go to `log`. Throws std::runtime_error on failures
// that stop the run (no usable data, NaN loss, a checkpoint that cannot be written), leaving the
// last good checkpoint in place. With `resume`, OUT must hold a checkpoint of this seed, whose
// files match their checksums; if it is already at `steps`, the call says so in `log` and returns
// with already_trained set.
VocoderTrainingSummary train_vocoder(const VocoderTrainingOptions& options, std::ostream& log);

// The learning rate at `step` (counted from 1) under the options' schedule.
float learning_rate_at(const VocoderTrainingOptions& options, int64_t step);

}  // namespace tts::train
