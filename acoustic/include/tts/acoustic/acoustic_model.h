// The acoustic model's inference interface: phoneme ids → durations → log-mel frames.
// (Contract shared by the engine and the acoustic model implementation.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "tts/kernels/mel.h"
#include "tts/kernels/tensor.h"

namespace tts::acoustic {

struct AcousticControls {
  float rate = 1.0f;  // speaking rate: durations are divided by this (2 = twice as fast)
  // Pitch shift in semitones (within ±24), for a model that predicts pitch (predicts_pitch());
  // any other value than 0 is an error for one that does not.
  float pitch_semitones = 0.0f;
};

struct AcousticOutput {
  kernels::Matrix mel;         // n_mels × frames, log-mel with the voice's MelConfig
  std::vector<int> durations;  // frames per input id (sums to mel.cols())
  // Per input id, the F0 (Hz) it is spoken at, the shift included; 0 where the model does not
  // predict pitch.
  std::vector<float> f0_hz;
};

// A loaded acoustic model: immutable after load, so synthesize() may be called from many threads
// at once.
class AcousticModel {
 public:
  virtual ~AcousticModel() = default;

  // `ids` are the symbol-table ids of one sentence, including BOS/EOS. Throws std::invalid_argument
  // naming the problem for an empty sequence or an id outside the model's table.
  AcousticOutput synthesize(const std::vector<int32_t>& ids,
                            const AcousticControls& controls) const;

  // synthesize() as its frames are decoded, so that audio can start before the whole sentence is
  // (network.h, synthesis_windows): `part` is called first with the durations, the F0s and the
  // first frames, then with each following run of frames (durations and F0s empty); the last call
  // has last = true. Put together, the frames are synthesize()'s, bit for bit. An exception thrown
  // by `part` ends the call.
  using PartCallback = std::function<void(AcousticOutput part, bool last)>;
  virtual void synthesize_in_parts(const std::vector<int32_t>& ids,
                                   const AcousticControls& controls,
                                   const PartCallback& part) const = 0;

  // Whether the model predicts pitch (a variance adaptor), so that pitch_semitones can move it.
  virtual bool predicts_pitch() const = 0;

  // The features the model produces (must equal the vocoder's).
  virtual const kernels::MelConfig& features() const = 0;
};

// Loads DIR/acoustic.json + DIR/acoustic.safetensors; throws std::runtime_error naming the file and
// the problem (missing, truncated, wrong tensor name/shape/dtype, unsupported format version).
std::unique_ptr<AcousticModel> load_acoustic_model(const std::filesystem::path& dir);

}  // namespace tts::acoustic
