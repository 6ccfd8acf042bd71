// The recordings a voice is trained on, decoded once: μ-law classes and log-mel frames per file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tts/kernels/mel.h"
#include "tts/kernels/tensor.h"

namespace tts::train {

struct AudioUtterance {
  std::string id;
  std::filesystem::path path;
  std::string text;              // from metadata.csv when there is one
  std::vector<int32_t> classes;  // vocoder classes of the audio at the features' sample rate
  kernels::Matrix mel;           // n_mels × frames (frames = 1 + samples / hop)
  // An acoustic model's frames for this recording, aligned to it (same shape as `mel`), for
  // fine-tuning the vocoder on what it will hear at synthesis; empty when there are none
  // (tts/train/predicted_mels.h).
  kernels::Matrix predicted_mel;
  // With AudioCorpusOptions::pitch_energy: per mel frame, F0 in Hz (0 where unvoiced;
  // kernels/pitch.h) and log energy (kernels/mel.h); empty otherwise.
  std::vector<float> f0_hz;
  kernels::Vector log_energy;
};

struct AudioCorpusOptions {
  kernels::MelConfig features;
  int classes = 256;
  float preemphasis = 0.0f;  // of the vocoder's sample codec (tts/vocoder/sample_codec.h)
  int threads = 2;           // decoding and mel computation run in parallel
  double validation_fraction = 0.05;
  int min_validation = 1;
  double min_seconds = 0.1;   // shorter files are skipped with a warning
  double max_seconds = 60.0;  // longer files are skipped with a warning
  bool pitch_energy = false;  // also track F0 and measure energy per frame (acoustic models)
};

// How many files or rows were skipped, by reason ("unreadable", "silent", "duplicate id", …).
using SkipCounts = std::map<std::string, std::size_t>;

struct AudioCorpus {
  std::vector<AudioUtterance> training, validation;
  std::vector<std::string> warnings;  // one per skipped file or row, naming it and why
  SkipCounts skipped;
};

// The audio files of `dir`: LJSpeech layout (metadata.csv rows "id|text[|normalised]" with audio in
// wavs/id.wav) when metadata.csv exists, else every .wav/.flac/.ogg under dir, sorted by path.
// Returns (path, id, text) triples; malformed rows (no "|", more than three fields, an id outside
// wavs/), rows whose audio is missing, not a regular file (a FIFO, folder or device: never opened)
// or unreachable (a symlink loop), rows whose text has nothing to speak (no letter or digit) and
// rows that repeat an earlier row's id (the first is kept) become warnings naming the row, counted
// in `skipped` if given; so do audio files of a folder that are not regular files. Throws
// std::runtime_error when metadata.csv is not a regular file, is empty or has no rows.
struct CorpusEntry {
  std::filesystem::path path;
  std::string id, text;
  int line = 0;  // of metadata.csv (from 1); 0 for a folder without one
};
std::vector<CorpusEntry> list_corpus(const std::filesystem::path& dir,
                                     std::vector<std::string>& warnings,
                                     SkipCounts* skipped = nullptr);

// The rows of dir/metadata.csv alone, as list_corpus reads them, with each skipped row apart:
// where it is ("metadata.csv:LINE"), the reason it is counted under and what was wrong.
struct SkippedRow {
  std::string where, reason, detail;
};
std::vector<CorpusEntry> list_metadata_rows(const std::filesystem::path& dir,
                                            std::vector<SkippedRow>& skipped);

// The letters and digits of `text` (UTF-8, in any script): what a transcript speaks, without its
// spaces and punctuation.
std::size_t spoken_characters(const std::string& text);

// For an error when nothing usable is left: "N skipped (a reason, b reason, …)" and the first
// `shown` warnings, one per line, then how many more there were.
std::string describe_skipped(const SkipCounts& skipped, const std::vector<std::string>& warnings,
                             std::size_t shown = 5);

// Lists, decodes and featurises the corpus. Unreadable, empty, too short or too long files, and
// rows whose transcript is far longer or shorter than the recording could hold (fewer than 1 or
// more than 40 letters per second), are skipped and named in `warnings`; throws std::runtime_error
// only when nothing usable is left, saying why (describe_skipped). The validation split is every
// k-th file by sorted order, so it does not depend on threads.
AudioCorpus load_audio_corpus(const std::filesystem::path& dir, const AudioCorpusOptions& options);

}  // namespace tts::train
