// The whole acoustic model: phoneme embedding → conv encoder → (duration predictor, prior means)
// → length regulator → conv decoder → normalised log-mel frames. Training runs it on a packed
// batch with durations either given or found by monotonic alignment search between the prior
// means and the target frames; synthesis predicts the durations.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tts/acoustic/layers.h"
#include "tts/acoustic/variance_adaptor.h"
#include "tts/acoustic/weights.h"
#include "tts/frontend/symbol_table.h"
#include "tts/kernels/ops/backend.h"
#include "tts/kernels/ops/buffer.h"

namespace tts::acoustic {

// Whole utterances packed end to end: utterance u has token_lengths[u] ids and frame_lengths[u]
// mel columns, in order.
struct AcousticBatch {
  std::vector<int32_t> ids;
  std::vector<int> token_lengths;
  kernels::Matrix mel;  // n_mels × Σ frame_lengths, log-mel as the features compute it
  std::vector<int> frame_lengths;
  // The frame contours that a model with a variance adaptor is trained on (1 × Σ frame_lengths
  // each; empty for a model without one): natural log of F0 in Hz, carried across unvoiced frames
  // (NaN throughout an utterance with no voiced frame), and log energy (kernels/mel.h).
  kernels::Matrix log_f0, log_energy;
  // Per utterance, whose voice it is (0..config.speakers - 1). Empty: every utterance is the
  // model's synthesis speaker (config.speaker), as for a model of one speaker.
  std::vector<int> speakers;
};

struct AcousticLossSettings {
  bool l1_mel = true;         // mean |error| of the normalised frames, else mean squared error
  float prior_weight = 1.0f;  // ½·mean squared error between prior means and frames (alignment)
  float duration_weight = 1.0f;  // mean squared error of log(1 + frames) per token
  // Mean squared errors of the predicted normalised pitch and energy per token (tokens with
  // frames). FastPitch weighs its pitch loss 0.1 against an L2 mel loss.
  float pitch_weight = 0.1f;
  float energy_weight = 0.1f;
  // Indexed by symbol id (frontend::SymbolTable::timings()): how many frames alignment and
  // synthesis give each token. Empty: every token sounds (at least one frame), as in Glow-TTS.
  std::vector<frontend::SymbolTiming> symbol_timings;
  // Per mel channel: 1 / the channel's standard deviation of normalised frames, so that alignment
  // weighs every channel alike. Empty: unit weights (all channels share the global scale).
  kernels::Vector alignment_channel_weights;
  // Log-likelihood (nats) each frame costs when alignment gives it to a word boundary (kMayPause)
  // inside the utterance; BOS and EOS at the edges and clause punctuation (kClausePause) pay
  // nothing. Without it the word boundary took the silent closure of a following stop
  // (docs/acoustic-model.md).
  float pause_penalty = 20.0f;
  // The flat start (flat_start_durations) gives BOS and EOS the utterance's leading and trailing
  // frames whose loudness (mean log-mel) lies below this share of the way from its quietest to its
  // loudest frame; 0 spreads every frame evenly over all tokens.
  float edge_silence_threshold = 0.3f;
  // How many of a phone's alignment states (in order) must each take at least one frame; 0 = all
  // of them, so a phone lasts at least alignment_states frames. With only the first state required,
  // a vowel's last states kept the silent closure of the stop after it and left the stop one or two
  // frames of burst (docs/acoustic-model.md, durations). An utterance with too few frames for that
  // falls back to one required state.
  int min_phone_states = 0;
  // Share of the encoder's, duration predictor's and decoder's ReLU activations zeroed in
  // forward() (training; FastSpeech uses 0.1-0.5). align() and synthesize() never drop; the
  // aligner's prior reads the embedding and is not affected.
  float dropout = 0.0f;
};

// The counts a batch's mean losses are taken over: frames (mel and prior losses), tokens (duration
// loss) and tokens with frames (pitch and energy losses). 0 means the batch's own count. A
// micro-batch of a larger batch (gradient accumulation, data parallel: tts/train/batch_layout.h)
// is given the whole batch's, so that its losses and gradients are its share of the whole batch's
// means, and the shares of all its micro-batches add up to them.
struct LossNormalisers {
  double frames = 0.0, tokens = 0.0, sounding_tokens = 0.0;
};

struct AcousticLosses {
  double mel = 0.0, prior = 0.0, duration = 0.0, pitch = 0.0, energy = 0.0, total = 0.0;
};

// What synthesis gives besides the frames: per token, the frames it lasts and (with a variance
// adaptor) the F0 it is spoken at in Hz, the pitch shift included (0 without one).
// A run of frames: [first, first + count).
struct FrameWindow {
  int first = 0, count = 0;
};

// The frames a stream's first audio waits for: enough for about a third of a second of audio
// (with a hop of 256 at 22,050 Hz) while the rest of the sentence is decoded.
constexpr int kFirstWindowFrames = 32;

// The windows synthesis decodes an utterance of `frames` in, for a decoder that reads `context`
// frames either side: the first kFirstWindowFrames, then the rest; one window when the rest would
// be no longer than the context (what the second window would decode again).
std::vector<FrameWindow> synthesis_windows(int frames, int context);

// Wall-clock seconds of each stage of the last synthesize() (for `tts bench pipeline --phases`).
struct AcousticPhaseTimes {
  double encoder = 0, durations = 0, variances = 0, length_regulation = 0, decoder = 0, output = 0;
};

struct AcousticSynthesis {
  std::vector<int> durations;
  std::vector<float> f0_hz;
};

// Written once against the device-op interface (tts/kernels/ops/backend.h): every activation lives
// in the memory of the backend the pass is given, the CPU's by default, on which it computes
// what the CPU kernels give, bit for bit. On a GPU backend, per forward() the weights and the
// batch go up and the losses come down, per backward() the gradients come down, so the optimiser,
// clipping, EMA and checkpoints stay the CPU's and a run can change device on --resume. What is
// per utterance or per token and small stays on the host on every backend: monotonic alignment
// search (alignment_targets.h; the prior's means come down for it), the variance adaptor's
// contours, targets, bucket coordinates and masked MSE, the duration targets and the token
// positions.
class AcousticPass {
 public:
  // Keeps a reference to `weights`; they must outlive this object and not change between a
  // forward() and its backward() (each forward() reads their current values). The first form runs
  // on the CPU; kBf16 needs a backend that has it (CUDA).
  explicit AcousticPass(const AcousticWeights& weights, AcousticLossSettings settings = {});
  AcousticPass(const AcousticWeights& weights, AcousticLossSettings settings,
               kernels::Backend& backend,
               kernels::GemmPrecision precision = kernels::GemmPrecision::kFp32);

  // Runs the network on `batch` and keeps the activations. `durations` (one per id, summing to
  // each utterance's frames) fixes the alignment; empty means monotonic alignment search. With
  // settings.dropout > 0 the dropout masks are drawn from `dropout_seed` (one per training step).
  // The losses are means over `normalisers`' counts (the batch's own by default).
  AcousticLosses forward(const AcousticBatch& batch, const std::vector<int>& durations = {},
                         uint64_t dropout_seed = 0, const LossNormalisers& normalisers = {});

  // Adds the gradient of the last forward()'s total loss to `gradients` (the weights' layout).
  // MAS durations are treated as constants, as in Glow-TTS. `loss_scale` multiplies the losses'
  // gradients at the top of the pass, so every gradient below them is scaled (dynamic loss
  // scaling, tts/train/loss_scaler.h); at 1 the pass is exactly the unscaled one.
  void backward(kernels::ParameterSet& gradients, float loss_scale = 1.0f);

  // "cpu", or the GPU and its GEMM precision, for logs.
  std::string describe() const;

  // The durations of the last forward() (given or searched), and (copied to the host) its
  // predicted frames (normalised, n_mels × Σ frames) and log-durations (1 × ids).
  const std::vector<int>& durations() const { return durations_; }
  kernels::Matrix predicted_mel() const { return predicted_.download(); }
  kernels::Matrix log_durations() const { return log_durations_.download(); }
  // The last forward()'s or synthesize()'s normalised token pitch and energy (1 × ids; empty
  // without a variance adaptor).
  kernels::Matrix predicted_pitch() const { return pitch_.predicted.download(); }
  kernels::Matrix predicted_energy() const { return energy_.predicted.download(); }

  // acoustic::flat_start_durations (alignment_targets.h) under this pass's settings.
  std::vector<int> flat_start_durations(const AcousticBatch& batch) const;

  // The monotonic alignment of `batch` under the current weights (encoder and prior only).
  std::vector<int> align(const AcousticBatch& batch);

  // Synthesis of one utterance: predicted durations ((exp(predicted) - 1) / rate, rounded, at most
  // kMaxTokenFrames; at least 1 where the symbol sounds, 0 where it takes no time) and the log-mel
  // frames, denormalised, decoded window by window (synthesis_windows). With a variance adaptor the
  // predicted pitch is raised by `pitch_semitones` (which must be 0 without one).
  void synthesize(const std::vector<int32_t>& ids, float rate, std::vector<int>& durations,
                  kernels::Matrix& mel, float pitch_semitones = 0.0f,
                  std::vector<float>* token_f0_hz = nullptr);

  // synthesize() in steps, so that a stream's first audio waits for its first frames only:
  // begin_synthesis() predicts the durations (and F0s) and returns the utterance's frames; then
  // decode_frames(first, count, mel) decodes frames [first, first + count), denormalised, from the
  // decoder's input over them and decoder_context_frames() either side. The decoder's
  // convolutions see no further, so a window's frames are the whole utterance's in arithmetic; in
  // floating point a GEMM over fewer columns may round a column differently, by about 1e-6.
  int begin_synthesis(const std::vector<int32_t>& ids, float rate, float pitch_semitones,
                      std::vector<int>& durations, std::vector<float>* token_f0_hz = nullptr);
  void decode_frames(int first, int count, kernels::Matrix& mel);
  // Frames either side of a frame that the decoder reads (Σ kernel / 2 over its blocks).
  int decoder_context_frames() const;

  // With `times`, synthesize() records how long each stage took there (nullptr: not timed).
  void set_phase_times(AcousticPhaseTimes* times) { phase_times_ = times; }

 private:
  // Makes the current weights readable by the ops (in place on the CPU).
  void read_weights();
  // The layers' context: the weights, and the gradients being added into (backward only).
  LayerContext context(kernels::View gradients = {}) const;
  // Embeds and encodes `ids`; with several speakers, adds utterance u's speaker vector
  // (`speakers[u]`, or config.speaker for every utterance when empty) to its tokens' states.
  void encode(const std::vector<int32_t>& ids, const std::vector<int>& lengths,
              const std::vector<int>& speakers);
  // The token states the predictors and the decoder read: the encoder's output, plus the speaker
  // vectors in a model of several speakers.
  kernels::View encoded() const;
  // The dropout of conv block number `block` (counted over encoder, duration predictor, decoder):
  // none outside forward().
  Dropout dropout_for(int block) const;
  // The duration predictor on encoded() over the tokens encode() was given.
  void predict_durations();
  // The variance adaptor's predictors on the encoder's output (nothing without one).
  void predict_variances();
  // Runs the decoder on the expanded encoder states; with a variance adaptor, frame_log_f0_ and
  // frame_energy_z_ must hold the frame contours its embeddings read. It is the two below.
  void decode(const std::vector<int>& frame_lengths);
  // The decoder's input (decoder_outs_[0]) over durations_'s frames: token states repeated over
  // their frames, positions within the token, pitch and energy embeddings.
  void regulate_lengths();
  // The decoder's blocks and output projection on `input` (columns of decoder_outs_[0], in
  // utterances of `frame_lengths`), into predicted_.
  void run_decoder(kernels::View input, const std::vector<int>& frame_lengths);
  // Monotonic alignment search of target_host_ under the current prior (alignment_targets.h);
  // sets state_durations_.
  std::vector<int> search_alignment(const AcousticBatch& batch);
  // The prior's means viewed as M × (tokens · alignment_states), token by token (no copy).
  kernels::View state_means() const;
  // A view's values on the host: its memory itself on the CPU, else a copy in `scratch`.
  kernels::ConstMatrixMap on_host(const kernels::Buffer& buffer, kernels::Matrix& scratch) const;
  // settings_.symbol_timings of an id (kSounds when the table is empty or the id outside it).
  frontend::SymbolTiming timing(int32_t id) const;

  const AcousticWeights& weights_;
  AcousticLossSettings settings_;
  kernels::Backend& backend_;
  kernels::GemmPrecision precision_;
  AcousticPhaseTimes* phase_times_ = nullptr;
  bool have_forward_ = false;
  // The loss scale the losses' gradients hold (forward() leaves 1): a second backward() of one
  // forward() rescales them by the ratio, exact for the powers of two a loss scaler uses.
  float loss_gradient_scale_ = 1.0f;
  bool dropout_active_ = false;  // only while forward() runs
  uint64_t dropout_seed_ = 0;
  std::vector<int> durations_;
  // Frames of each token's alignment states (tokens × alignment_states, token-major).
  std::vector<int> state_durations_;
  std::vector<int32_t> token_speakers_;  // 1 × P, the speaker of each token
  // Index data of the batch, in the backend's form.
  std::unique_ptr<kernels::Indices> ids_ = backend_.make_indices(),
                                    speaker_ids_ = backend_.make_indices();
  std::unique_ptr<kernels::Lengths> token_lengths_ = backend_.make_lengths(),
                                    frame_lengths_ = backend_.make_lengths();
  std::unique_ptr<kernels::Repeats> token_repeats_ = backend_.make_repeats(),
                                    state_repeats_ = backend_.make_repeats();
  std::unique_ptr<kernels::Interpolation> pitch_buckets_ = backend_.make_interpolation(),
                                          energy_buckets_ = backend_.make_interpolation();
  // The weights and the gradients: the host arrays themselves on the CPU.
  kernels::Buffer weights_on_device_{backend_}, gradients_on_device_{backend_};
  kernels::View weights_view_;
  // Host-side data and their views: the normalised target frames (M × F), the log-duration
  // targets (1 × P), each frame's place in its token (2 × F), the prior's means for the search.
  kernels::Matrix target_host_, log_target_host_, positions_, means_host_;
  kernels::Buffer target_on_device_{backend_}, log_target_on_device_{backend_};
  kernels::View target_, log_target_;
  // Kept activations.
  kernels::Buffer embedded_{backend_};  // C × P
  std::vector<ConvBlockActivations> encoder_acts_, duration_acts_, decoder_acts_;
  std::vector<kernels::Buffer> encoder_outs_;   // per block output, C × P
  kernels::Buffer with_speaker_{backend_};      // C × P, encoded() with several speakers
  std::vector<kernels::Buffer> duration_outs_;  // H × P
  kernels::Buffer log_durations_{backend_}, prior_means_{backend_};  // 1 × P, M·S × P
  kernels::Buffer decoder_in_{backend_};                             // (C + 2) × F
  std::vector<kernels::Buffer> decoder_outs_;  // D × F, [0] = after the input projection
  kernels::Buffer predicted_{backend_}, prior_frames_{backend_};  // M × F, normalised
  kernels::Buffer d_predicted_{backend_}, d_prior_frames_{backend_}, d_log_durations_{backend_};
  // Variance adaptor: the predictors, the frame contours the decoder embeds (1 × F, host), the
  // per-token targets, mask and the masked MSE's gradients (host, 1 × P, and their views).
  VariancePredictorActivations pitch_{backend_}, energy_{backend_};
  kernels::Matrix frame_log_f0_, frame_energy_z_;
  kernels::Matrix pitch_target_, energy_target_;
  std::vector<float> variance_mask_;
  kernels::Matrix d_pitch_, d_energy_;
  kernels::Buffer d_pitch_on_device_{backend_}, d_energy_on_device_{backend_};
  kernels::View d_pitch_view_, d_energy_view_;
  // Backward scratch, kept between steps so that large buffers are allocated once.
  kernels::Buffer d_hidden_{backend_}, d_in_{backend_}, d_decoder_in_{backend_},
      d_encoded_{backend_}, d_means_{backend_}, d_embedded_{backend_}, d_duration_{backend_};
  ConvBlockScratch scratch_{backend_};
};

}  // namespace tts::acoustic
