// How near a finished acoustic model comes to a speaker's recordings: the held-out likeness that a
// word error rate cannot show (a voice can be understood and still not sound like her). Each
// recording is aligned to its transcript by the model's own aligner, as in training, and scored
// on three things:
//   - its spectra: the mean |error| of the model's log-mel frames under that alignment (the
//     training's validation mel loss, for any corpus and any finished model or voice);
//   - its timing: the duration predictor's log(1 + frames) error per sounding phone;
//   - its pace: the frames synthesis would make for the transcript against the recording's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace tts::train {

struct AcousticScoreOptions {
  std::filesystem::path model_dir;  // a `tts train acoustic` OUT or a voice's acoustic/ folder
  std::filesystem::path data_dir;   // the corpus (LJSpeech layout)
  std::vector<std::string> ids;     // the recordings to score; empty = all usable ones
  std::string language = "en-us";
  int loader_threads = 2;
};

// One recording's scores (AcousticScore's, for it alone).
struct UtteranceScore {
  std::string id;
  int frames = 0;
  double aligned_mel_l1 = 0.0;  // per mel value
  double prior_nll = 0.0;       // the aligner's negative log-likelihood of a frame on its path
  bool validation = false;      // one a model trained on this folder validated on, never trained on
};

struct AcousticScore {
  int utterances = 0;
  int64_t frames = 0;            // the recordings' frames
  double aligned_mel_l1 = 0.0;   // log-mel units, per mel value over all frames
  double log_duration_l1 = 0.0;  // mean |predicted − aligned log(1 + frames)| per sounding phone
  int64_t synthesized_frames = 0;             // what synthesis makes for the same transcripts
  std::vector<UtteranceScore> per_utterance;  // in the order scored
  double length_ratio() const {
    return frames ? static_cast<double>(synthesized_frames) / static_cast<double>(frames) : 0.0;
  }
};

// Throws std::runtime_error on an unreadable model or corpus, and std::invalid_argument naming
// every requested id that the corpus lacks or could not use (no silent partial score).
AcousticScore score_acoustic_model(const AcousticScoreOptions& options, std::ostream& log);

}  // namespace tts::train
