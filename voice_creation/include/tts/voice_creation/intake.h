// The first stage of `tts voices create`: a person's recordings, as they come, turned into a clean
// corpus the trainers read. Every row is checked; a bad one is skipped with its file or line and
// the reason, never failing the whole folder.
#pragma once

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tts::creation {

struct IntakeOptions {
  // An LJSpeech folder (metadata.csv rows "id|text[|normalised]", audio in wavs/id.wav), or a
  // folder of audio files (any format libsndfile reads), each with a same-named .txt transcript.
  std::filesystem::path data_dir;
  // Receives wavs/ID.wav (16-bit mono at sample_rate) and metadata.csv ("id|text") of the rows
  // kept, in the order read.
  std::filesystem::path out_dir;
  std::string language = "en-us";  // the espeak-ng voice that must read every transcript
  int sample_rate = 16000;
  double min_seconds = 0.25;  // of speech, from its first loud 10 ms to its last
  double max_seconds = 20.0;
  int low_source_rate = 16000;  // a recording made at less is kept, with a warning
  // Leading and trailing audio quieter than this many dB below the loudest 10 ms is trimmed, with
  // edge_padding seconds of it left on each side (the aligner gives edges to BOS and EOS).
  double trim_below_peak_db = 40.0;
  double edge_padding = 0.15;
  // The RMS level, in dBFS, each recording's speech is scaled to (its peak kept below -0.5 dBFS).
  double speech_level_dbfs = -20.0;
  // A recording is clipped when more than this share of its samples lie in runs of three or more
  // at full scale.
  double clipped_share = 0.0005;
  // A row whose phonemes per second are more than this factor from the corpus's median is
  // another recording's transcript, or runs several together; a slow one only when its speech
  // lasts this many seconds longer than its phonemes would at the median pace.
  double speaking_rate_factor = 2.5;
  double unexplained_seconds = 1.5;
  int threads = 2;
};

struct IntakeRow {
  std::string id, text;
  double seconds = 0.0;  // after trimming
  int source_rate = 0;
  int source_channels = 1;  // mixed down to one
  int phonemes = 0;
};

struct IntakeReport {
  std::vector<IntakeRow> kept;
  std::size_t rows_read = 0;  // rows and files considered, kept or not
  // Skipped rows by reason ("unreadable audio", "clipped", …) and one line per skipped row
  // naming its file or line and why.
  std::map<std::string, std::size_t> skipped;
  std::vector<std::string> skip_lines;
  // Kept rows worth a look (a source rate below low_source_rate, several channels mixed down),
  // one line each.
  std::vector<std::string> warnings;
  double seconds_kept() const;
  // The seconds of the kept rows among `ids`.
  double seconds_of(const std::vector<std::string>& ids) const;
};
void to_json(nlohmann::json& j, const IntakeReport& r);
void from_json(const nlohmann::json& j, IntakeReport& r);

// Reads, checks, trims, levels and resamples every row, writing the kept ones to out_dir
// (replacing what a previous intake wrote there). Throws std::runtime_error when data_dir is not
// a folder of recordings at all; bad rows are only counted and named.
IntakeReport run_intake(const IntakeOptions& options);

// The summary a person reads: minutes kept, and rows skipped by reason.
std::string format_intake_summary(const IntakeReport& report);

// Throws std::runtime_error, saying how many more minutes to record, when the kept audio is less
// than `minimum_minutes`.
void require_enough_audio(const IntakeReport& report, double minimum_minutes);

}  // namespace tts::creation
