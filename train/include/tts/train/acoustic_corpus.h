// The corpus an acoustic model trains on: each recording's log-mel frames beside the phoneme ids
// of its transcript (metadata.csv text through the TextPipeline), and batches of whole utterances.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "tts/acoustic/network.h"
#include "tts/kernels/mel.h"

namespace tts::acoustic {
struct AcousticModelFiles;
}

namespace tts::train {

struct AcousticUtterance {
  std::string id;
  std::string text;
  std::vector<int32_t> ids;  // BOS, phoneme ids, EOS
  kernels::Matrix mel;       // n_mels × frames
  // 1 × frames each: log F0 carried across unvoiced frames (acoustic::continuous_log_f0) and log
  // energy, for the variance adaptor.
  kernels::Matrix log_f0, log_energy;
  std::vector<float> f0_hz;  // per frame as tracked, 0 where unvoiced
  int speaker = 0;           // whose recording, in a corpus of several speakers
};

struct AcousticCorpus {
  std::vector<AcousticUtterance> training, validation;
  std::vector<std::string> warnings;           // one per skipped file or row, naming it and why
  std::map<std::string, std::size_t> skipped;  // how many, by reason (train::SkipCounts)
};

// Loads `dir` like load_audio_corpus (LJSpeech layout: metadata.csv + wavs/), tracks each
// recording's pitch and energy, and phonemises each transcript in `language` as one sentence. Files
// without text, with text that does not phonemise, or with more ids than frames are skipped with a
// warning; throws std::runtime_error when nothing usable is left, saying why (describe_skipped).
AcousticCorpus load_acoustic_corpus(const std::filesystem::path& dir,
                                    const kernels::MelConfig& features, const std::string& language,
                                    int threads = 2);

// Batch number `index` of the stream identified by `seed`: `count` utterances, packed end to end.
// Slot i of the batch draws, uniformly with replacement, from the utterances of speaker
// i mod `speakers`, so every speaker has an equal share of every batch however many recordings
// each has (a voice's 20 minutes are not drowned by the hours of the voices trained beside it);
// with one speaker every slot draws from the whole corpus. A pure function of (seed, index), so a
// resumed run sees the same batches as an uninterrupted one. Throws when a speaker has no
// utterance.
acoustic::AcousticBatch make_speaker_balanced_batch(
    const std::vector<AcousticUtterance>& utterances, int speakers, int count, uint64_t seed,
    int64_t index);

// Utterances [first, first + slice) of that batch alone, packed in the same order: the slices of a
// batch put together are the batch (gradient accumulation, data parallel: batch_layout.h).
acoustic::AcousticBatch make_speaker_balanced_batch_slice(
    const std::vector<AcousticUtterance>& utterances, int speakers, int count, uint64_t seed,
    int64_t index, int first, int slice);

// All of `utterances` (from `first`, at most `count`) as one batch, in order.
acoustic::AcousticBatch pack_utterances(const std::vector<AcousticUtterance>& utterances,
                                        std::size_t first, std::size_t count);

// 1 / the standard deviation of each mel channel of the utterances' frames normalised by the
// config's mel_mean and mel_std: AcousticLossSettings::alignment_channel_weights.
kernels::Vector alignment_channel_weights(const std::vector<AcousticUtterance>& utterances,
                                          const acoustic::AcousticConfig& config);

// Every usable recording of a corpus (training and validation split alike, in that order) with
// the aligner set up to align them under a finished model, as training sets it up: the model's
// symbol timings, the recipe's other settings, and each mel channel weighed by its spread over
// these recordings. What `tts train aligned-mels` and `tts train score-acoustic` align with.
struct RecordingsToAlign {
  // The training split first, then from validation_begin on those the trainer keeps out of
  // training to validate on (the same split `tts train acoustic` makes of the folder).
  std::vector<AcousticUtterance> utterances;
  std::size_t validation_begin = 0;
  acoustic::AcousticLossSettings settings;
};
// Skipped rows are reported on `log`, one "warning:" line each; throws as load_acoustic_corpus.
RecordingsToAlign load_recordings_to_align(const acoustic::AcousticModelFiles& model,
                                           const std::filesystem::path& dir,
                                           const std::string& language, int threads,
                                           std::ostream& log);

}  // namespace tts::train
