// Reading, resampling and writing audio files (anything libsndfile reads; wav/flac/ogg out).
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace tts::audio {

// Any failure to read, decode, resample or write audio. The message names the file and the problem.
class AudioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Audio {
  std::vector<float> samples;  // mono, nominally in [-1, 1]
  int sample_rate = 0;
};

// Reads any format libsndfile understands, mixes down to mono, and resamples to `sample_rate`
// (0 keeps the file's own rate). Throws AudioError naming the file on failure.
Audio read_audio(const std::filesystem::path& path, int sample_rate = 0);

// High-quality resampling of mono audio (libsoxr). Returns the input unchanged if the rates match.
std::vector<float> resample(const std::vector<float>& samples, int from_rate, int to_rate);

// Writes 16-bit audio; the format follows the extension (.wav, .flac, .ogg). The data goes to a
// temporary file beside `path` that is renamed into place, so a failure never leaves half a file.
void write_audio(const std::filesystem::path& path, const float* samples, std::size_t count,
                 int sample_rate);

// Writes raw signed 16-bit little-endian samples (clipped) to `out`, e.g. stdout.
void write_raw_s16le(std::FILE* out, const float* samples, std::size_t count);

}  // namespace tts::audio
