// Training the acoustic model: durations from monotonic alignment search at every step, Adam with
// warm-up and gradient clipping, a moving average of the weights for export, validation, and
// checkpoints with exact resume. The same shape as the vocoder's trainer (vocoder_trainer.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tts/acoustic/config.h"
#include "tts/acoustic/network.h"
#include "tts/kernels/device.h"
#include "tts/kernels/mel.h"
#include "tts/kernels/optimizer.h"
#include "tts/train/communicator.h"
#include "tts/train/loss_scaler.h"
#include "tts/train/training_loop.h"

namespace tts::train {

struct AcousticTrainingOptions {
  std::filesystem::path data_dir, out_dir;
  // Recordings of other speakers (same layout as data_dir) trained beside data_dir's, which stay
  // speaker 0, the one the exported model speaks as; these are speakers 1, 2, … in order. Every
  // batch gives each speaker an equal share; validation uses data_dir's held-out files only.
  std::vector<std::filesystem::path> other_speaker_dirs;
  // More recordings of speaker 0 (same layout), e.g. the same speaker in another language: trained
  // and validated as data_dir's are.
  std::vector<std::filesystem::path> more_data_dirs;
  // The espeak-ng language of a folder's transcripts where it is not `language` (a voice of
  // several languages, a base of speakers who speak different ones).
  std::map<std::filesystem::path, std::string> folder_languages;
  // `symbols`, `n_mels`, `mel_mean` and `mel_std` are filled in from the symbol table, the
  // features and the training corpus.
  acoustic::AcousticConfig config;
  kernels::MelConfig features;
  std::string language = "en-us";
  int64_t steps = 2000;  // total steps (a resumed run continues up to this number)
  uint64_t seed = 1;
  bool resume = false;
  // When set (and not resuming): start from this exported model's weights (OUT of an earlier run,
  // or a voice's acoustic/ folder), e.g. pre-trained on more speech, instead of random ones. Its
  // architecture must match (or is taken over: architecture_from_init); mel_mean and mel_std are
  // measured on this run's corpus as usual.
  std::filesystem::path init_from;
  // With init_from: take its architecture (config) and mel features instead of `config` and
  // `features`, so that a model pre-trained at any size fine-tunes without restating them
  // (`tts train acoustic --init-from` without --config). Otherwise they must match it.
  bool architecture_from_init = false;
  // When not empty, only the tensors these layers name (acoustic::layer_contains: "pitch",
  // "decoder.input", …) train; the others keep their starting weights. For adapting a few layers
  // of a finished model (a mixed one, docs/acoustic-model.md) without moving the rest.
  std::vector<std::string> trained_layers;
  int batch_utterances = 8;  // per micro-batch
  // Micro-batches whose gradients are summed before each optimiser step (--accumulate): a step's
  // batch is world size × accumulate × batch_utterances utterances, drawn as one batch of that
  // size (tts/train/batch_layout.h) and its losses normalised as that batch's (over all its frames
  // and tokens: acoustic::LossNormalisers), with the memory of one micro-batch. Dropout masks are
  // drawn per micro-batch (the first as a whole batch's), so the equality with one large batch is
  // exact only without dropout.
  int accumulate = 1;
  // The ranks training together (data parallel: tts/train/world.h); nullptr: this process alone.
  // Every rank loads the corpus; only rank 0 writes files and the log. A resume reads OUT on every
  // rank, so OUT must be one folder that all of them see.
  Communicator* communicator = nullptr;
  // Where the training step's forward and backward passes run, and the GEMMs' precision there
  // (the alignment search, optimiser, validation and checkpoints stay on the CPU, so a run may
  // move between devices on --resume).
  kernels::DeviceChoice device;
  // Dynamic loss scaling (tts/train/loss_scaler.h): by default on with --precision fp16 only.
  LossScalingOptions loss_scaling;
  acoustic::AcousticLossSettings loss{};
  kernels::AdamSettings adam{};
  int64_t warmup_steps = 100;
  // Flat start: for the first steps every utterance's frames are spread evenly over its tokens;
  // after them, durations come from monotonic alignment search under the prior being learned.
  int64_t uniform_alignment_steps = 100;
  // Random restarts of a run from scratch (not resumed, no init_from): this many candidates, from
  // the seed and others derived from it, each train restart_steps steps; the one whose aligner
  // fits the training corpus best (lowest prior loss under its searched alignments) continues to
  // `steps`, and its seed becomes the run's (the checkpoint records it). 1 = no restarts.
  int alignment_restarts = 1;
  int64_t restart_steps = 200;
  float clip_norm = 1.0f;
  float ema_decay = 0.99f;
  int64_t log_every = 10;
  ProgressCallback progress;     // after each step (rank 0): tts/train/training_loop.h
  int64_t validate_every = 100;  // 0 = never
  int64_t checkpoint_every = 100;
  int loader_threads = 2;
  // When set, after training: one line per utterance, "id<TAB>ids<TAB>durations" (space-separated),
  // the monotonic alignment of every training and validation utterance under the averaged weights.
  std::filesystem::path alignments_file;
};

struct AcousticTrainingSummary {
  int64_t first_step = 0, last_step = 0;  // steps run by this call: (first_step, last_step]
  // A resume whose checkpoint already reached `steps`: nothing was trained or written.
  bool already_trained = false;
  acoustic::AcousticLosses last_losses;
  std::optional<double> last_validation_mel;  // mean mel loss (log-mel units) on held-out files
  double frames_per_second = 0.0;
};

// Runs training; progress lines and warnings go to `log`. Writes OUT/checkpoint.json (+ weights)
// and OUT/acoustic.json + acoustic.safetensors (the averaged weights). Throws std::runtime_error
// when the run cannot continue (no data, a non-finite loss, a failed write), leaving the last good
// checkpoint in place. With `resume`, OUT must hold a checkpoint of this --seed, whose files match
// their checksums; if it is already at `steps`, the call says so in `log` and returns with
// already_trained set.
AcousticTrainingSummary train_acoustic(const AcousticTrainingOptions& options, std::ostream& log);

}  // namespace tts::train
