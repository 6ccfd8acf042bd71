// Reading, resampling and writing audio files (anything libsndfile reads; wav/flac/ogg out).
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

struct sf_private_tag;  // libsndfile's SNDFILE, kept out of this header

namespace tts::audio {

// Any failure to read, decode, resample or write audio. The message names the file and the problem.
class AudioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Audio {
  std::vector<float> samples;  // mono, nominally in [-1, 1]
  int sample_rate = 0;
  int source_channels = 1;  // the file's channels, which `samples` is the mean of
};

// Reads any format libsndfile understands, mixes down to mono, and resamples to `sample_rate`
// (0 keeps the file's own rate). Throws AudioError naming the file on failure.
Audio read_audio(const std::filesystem::path& path, int sample_rate = 0);

// High-quality resampling of mono audio (libsoxr). Returns the input unchanged if the rates match.
std::vector<float> resample(const std::vector<float>& samples, int from_rate, int to_rate);

// Throws AudioError naming `path` unless its extension is one write_audio and AudioFileWriter
// write (.wav, .flac, .ogg, .opus, .mp3, in any case): for checking an output name before any
// work.
void check_audio_extension(const std::filesystem::path& path);

// Writes audio; the format follows the extension: .wav and .flac 16-bit, .ogg Vorbis, .opus Ogg
// Opus (8, 12, 16, 24 or 48 kHz only), .mp3 at a constant 64 kbit/s (below 32 kHz). The data goes
// to a temporary file beside `path` that is renamed into place, so a failure never leaves half a
// file.
void write_audio(const std::filesystem::path& path, const float* samples, std::size_t count,
                 int sample_rate);

// Writes an audio file as its samples arrive, in bounded memory (an hours-long synthesis never
// holds its audio): libsndfile encodes each block into a temporary file beside `path`, and
// finish() renames it into place. A writer destroyed before finish(), or one whose write or finish
// failed, removes its temporary, so `path` is either the old file or the whole new one. The
// format follows the extension, as write_audio's; the constructor opens the temporary, so a bad
// path or extension fails before any audio is made.
class AudioFileWriter {
 public:
  AudioFileWriter(std::filesystem::path path, int sample_rate);  // throws AudioError
  ~AudioFileWriter();
  AudioFileWriter(const AudioFileWriter&) = delete;
  AudioFileWriter& operator=(const AudioFileWriter&) = delete;

  void write(const float* samples, std::size_t count);  // throws AudioError naming the file
  void finish();  // flushes, closes and renames; throws AudioError naming the file

 private:
  [[noreturn]] void fail(const std::string& why);
  std::filesystem::path path_, temporary_;
  ::sf_private_tag* file_ = nullptr;
};

// Writes raw signed 16-bit little-endian samples (clipped) to `out`, e.g. stdout.
void write_raw_s16le(std::FILE* out, const float* samples, std::size_t count);

}  // namespace tts::audio
