#include "tts/audio/audio_file.h"

#include <sndfile.h>
#include <soxr.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

namespace fs = std::filesystem;

namespace tts::audio {

namespace {

struct SndfileCloser {
  void operator()(SNDFILE* f) const { sf_close(f); }
};
using SndfilePtr = std::unique_ptr<SNDFILE, SndfileCloser>;

int format_for_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  if (ext == ".wav") return SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  if (ext == ".flac") return SF_FORMAT_FLAC | SF_FORMAT_PCM_16;
  if (ext == ".ogg") return SF_FORMAT_OGG | SF_FORMAT_VORBIS;
  throw AudioError(path.string() + ": unknown audio extension \"" + ext +
                   "\" (use .wav, .flac or .ogg)");
}

}  // namespace

Audio read_audio(const fs::path& path, int sample_rate) {
  SF_INFO info{};
  SndfilePtr file(sf_open(path.c_str(), SFM_READ, &info));
  if (!file) throw AudioError(path.string() + ": cannot read audio: " + sf_strerror(nullptr));
  if (info.channels <= 0 || info.samplerate <= 0)
    throw AudioError(path.string() + ": audio has no channels or no sample rate");

  std::vector<float> interleaved(static_cast<std::size_t>(info.frames) * info.channels);
  sf_count_t frames = sf_readf_float(file.get(), interleaved.data(), info.frames);
  if (frames < 0) throw AudioError(path.string() + ": decoding failed: " + sf_strerror(file.get()));

  Audio audio;
  audio.sample_rate = info.samplerate;
  audio.samples.resize(static_cast<std::size_t>(frames));
  for (sf_count_t i = 0; i < frames; ++i) {
    float sum = 0.0f;
    for (int c = 0; c < info.channels; ++c) sum += interleaved[i * info.channels + c];
    audio.samples[i] = sum / static_cast<float>(info.channels);
  }
  if (sample_rate > 0 && sample_rate != audio.sample_rate) {
    audio.samples = resample(audio.samples, audio.sample_rate, sample_rate);
    audio.sample_rate = sample_rate;
  }
  return audio;
}

std::vector<float> resample(const std::vector<float>& samples, int from_rate, int to_rate) {
  if (from_rate <= 0 || to_rate <= 0)
    throw AudioError("resample: sample rates must be positive (got " + std::to_string(from_rate) +
                     " -> " + std::to_string(to_rate) + ")");
  if (from_rate == to_rate || samples.empty()) return samples;
  std::size_t out_length = static_cast<std::size_t>(
      std::llround(static_cast<double>(samples.size()) * to_rate / from_rate));
  std::vector<float> out(out_length + 16);
  soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
  soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, 0);
  std::size_t done = 0;
  soxr_error_t error = soxr_oneshot(from_rate, to_rate, 1, samples.data(), samples.size(), nullptr,
                                    out.data(), out.size(), &done, &io, &quality, nullptr);
  if (error) throw AudioError(std::string("resample: libsoxr failed: ") + error);
  out.resize(std::min(done, out_length));
  out.resize(out_length, 0.0f);
  return out;
}

void write_audio(const fs::path& path, const float* samples, std::size_t count, int sample_rate) {
  if (sample_rate <= 0) throw AudioError(path.string() + ": sample rate must be positive");
  SF_INFO info{};
  info.samplerate = sample_rate;
  info.channels = 1;
  info.format = format_for_extension(path);
  fs::path temporary = path;
  temporary += ".tmp-" + std::to_string(::getpid());
  {
    SndfilePtr file(sf_open(temporary.c_str(), SFM_WRITE, &info));
    if (!file)
      throw AudioError(path.string() + ": cannot open for writing: " + sf_strerror(nullptr));
    // Clip ourselves: libsndfile's float->int conversion wraps around on overflow otherwise.
    sf_command(file.get(), SFC_SET_CLIPPING, nullptr, SF_TRUE);
    sf_count_t written = sf_write_float(file.get(), samples, static_cast<sf_count_t>(count));
    if (written != static_cast<sf_count_t>(count)) {
      std::string why = sf_strerror(file.get());
      file.reset();
      std::error_code ec;
      fs::remove(temporary, ec);
      throw AudioError(path.string() + ": write failed: " + why);
    }
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    fs::remove(temporary, ec);
    throw AudioError(path.string() + ": cannot rename temporary file into place: " + ec.message());
  }
}

void write_raw_s16le(std::FILE* out, const float* samples, std::size_t count) {
  constexpr std::size_t kBlock = 4096;
  std::int16_t block[kBlock];
  for (std::size_t start = 0; start < count; start += kBlock) {
    std::size_t n = std::min(kBlock, count - start);
    for (std::size_t i = 0; i < n; ++i) {
      float v = std::clamp(samples[start + i], -1.0f, 1.0f);
      auto s = static_cast<std::int16_t>(std::lrint(v * 32767.0f));
      // Debian's targets are little-endian; keep the byte order explicit all the same.
      auto u = static_cast<std::uint16_t>(s);
      unsigned char* bytes = reinterpret_cast<unsigned char*>(&block[i]);
      bytes[0] = static_cast<unsigned char>(u & 0xFF);
      bytes[1] = static_cast<unsigned char>(u >> 8);
    }
    if (std::fwrite(block, sizeof(std::int16_t), n, out) != n)
      throw AudioError("writing raw audio failed (output closed?)");
  }
}

}  // namespace tts::audio
