// Ground-truth-aligned frames for fine-tuning the vocoder: an acoustic model's log-mel frames for
// each recording of a corpus, with each phoneme lasting as long as the aligner finds it does in the
// recording, so that frame f of the prediction belongs to the same audio as frame f of the
// recording. A vocoder trained on real frames alone has never heard the smoother frames the
// acoustic model makes at synthesis; these teach it to (Tacotron 2's "ground-truth-aligned"
// training, docs/vocoder.md).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "tts/train/audio_corpus.h"

namespace tts::train {

struct AlignedMelOptions {
  std::filesystem::path model_dir;  // a `tts train acoustic` OUT or a voice's acoustic/ folder
  std::filesystem::path data_dir;   // the corpus (LJSpeech layout)
  std::filesystem::path out_dir;    // gets ID.npy per recording: float32 (frames, n_mels)
  std::string language = "en-us";
  int loader_threads = 2;
};

// Writes OUT/ID.npy for every usable recording of the corpus (training and validation split
// alike) and returns how many; warnings about skipped rows go to `log`. Throws std::runtime_error
// on an unreadable model or corpus, or a failed write.
int write_aligned_mels(const AlignedMelOptions& options, std::ostream& log);

// Sets predicted_mel of each utterance from DIR/ID.npy. A missing file leaves the utterance
// without (one warning line in `warnings` for all of them); a file whose shape is not the
// recording's (frames, n_mels) throws std::runtime_error naming it. Returns how many were set.
int attach_predicted_mels(std::vector<AudioUtterance>& utterances, const std::filesystem::path& dir,
                          std::vector<std::string>& warnings);

}  // namespace tts::train
