#include "tts/audio/audio_file.h"

#include <sndfile.h>
#include <soxr.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "sndfile_formats.h"

namespace fs = std::filesystem;

namespace tts::audio {

namespace {

struct SndfileCloser {
  void operator()(SNDFILE* f) const { sf_close(f); }
};
using SndfilePtr = std::unique_ptr<SNDFILE, SndfileCloser>;

// Full scale is 1; floating-point files may go past it, and some tools write floats on the 16-bit
// scale (32768), but 120 dB above full scale is no recording.
constexpr float kMaxSampleMagnitude = 1e6f;

int format_for_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  if (ext == ".wav") return SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  if (ext.size() > 1)
    if (const SndfileFormat* f = find_sndfile_format(ext.substr(1))) return f->format;
  throw AudioError(path.string() + ": unknown audio extension \"" + ext +
                   "\" (use .wav, .flac, .ogg, .opus or .mp3)");
}

// Whether an Ogg file ends with a whole page that carries the end-of-stream flag (RFC 3533: a
// page is "OggS", version, flags (0x04: end of stream), …, 27 + segments + their lengths bytes).
bool ogg_ends_with_last_page(const fs::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  long from = std::max(0L, size - 65536L - 282L);  // a page is at most 65,307 bytes
  std::string tail(static_cast<std::size_t>(std::max(0L, size - from)), '\0');
  std::fseek(f, from, SEEK_SET);
  std::size_t got = std::fread(tail.data(), 1, tail.size(), f);
  std::fclose(f);
  tail.resize(got);
  // The last "OggS" at which a whole page ends exactly at the end of the file.
  for (std::size_t at = tail.rfind("OggS"); at != std::string::npos;
       at = at == 0 ? std::string::npos : tail.rfind("OggS", at - 1)) {
    if (at + 27 > tail.size()) continue;
    std::size_t segments = static_cast<unsigned char>(tail[at + 26]);
    if (at + 27 + segments > tail.size()) continue;
    std::size_t length = 27 + segments;
    for (std::size_t i = 0; i < segments; ++i)
      length += static_cast<unsigned char>(tail[at + 27 + i]);
    if (at + length == tail.size()) return (static_cast<unsigned char>(tail[at + 5]) & 0x04) != 0;
  }
  return false;
}

// libsndfile quietly shortens a WAV/AIFF whose data chunk runs past the end of the file and only
// notes it in its log as "data : <header length> (should be <actual length>)". A cut-off download
// or an interrupted write looks exactly like that, so treat it as the error it is. Lengths of 0 and
// 0xFFFFFFFF are what streaming writers put in a header they cannot seek back to; those are fine.
void check_not_truncated(SNDFILE* file, const fs::path& path) {
  std::string log(16384, '\0');
  sf_command(file, SFC_GET_LOG_INFO, log.data(), static_cast<int>(log.size()));
  log.resize(std::strlen(log.c_str()));
  // An Ogg stream cut short never reaches its end-of-stream page; libsndfile plays what there is.
  // Its log says "File ended unexpectedly" then, but also for whole short files (one audio page),
  // so the file's last page is read instead.
  if (log.find("Ogg stream data") != std::string::npos && !ogg_ends_with_last_page(path))
    throw AudioError(path.string() + ": file is truncated: the stream ends without its last page");
  const std::string marker = "data : ";
  for (std::size_t at = log.find(marker); at != std::string::npos; at = log.find(marker, at + 1)) {
    unsigned long long declared = 0, actual = 0;
    if (std::sscanf(log.c_str() + at, "data : %llu (should be %llu)", &declared, &actual) != 2)
      continue;
    if (declared > actual && declared != 0xFFFFFFFFull && declared != 0x7FFFFFFFull)
      throw AudioError(path.string() + ": file is truncated: its header promises " +
                       std::to_string(declared) + " bytes of audio, only " +
                       std::to_string(actual) + " are there");
  }
}

}  // namespace

void check_audio_extension(const fs::path& path) { format_for_extension(path); }

Audio read_audio(const fs::path& path, int sample_rate) {
  SF_INFO info{};
  SndfilePtr file(sf_open(path.c_str(), SFM_READ, &info));
  if (!file) throw AudioError(path.string() + ": cannot read audio: " + sf_strerror(nullptr));
  if (info.channels <= 0 || info.samplerate <= 0)
    throw AudioError(path.string() + ": audio has no channels or no sample rate");

  // Read in blocks rather than trusting the header's frame count: a damaged header can claim
  // any length (a truncated ogg reports garbage), and allocating that up front would abort.
  Audio audio;
  audio.sample_rate = info.samplerate;
  audio.source_channels = info.channels;
  constexpr sf_count_t kBlockFrames = 8192;
  std::vector<float> block(static_cast<std::size_t>(kBlockFrames) * info.channels);
  for (;;) {
    sf_count_t frames = sf_readf_float(file.get(), block.data(), kBlockFrames);
    for (sf_count_t i = 0; i < frames; ++i) {
      float sum = 0.0f;
      for (int c = 0; c < info.channels; ++c) sum += block[i * info.channels + c];
      const float mono = sum / static_cast<float>(info.channels);
      // A float file can hold NaN or infinity (found by fuzz/audio_fuzz), which would poison
      // every mel frame and loss computed from it: refused here, where the file can be named.
      if (!std::isfinite(mono))
        throw AudioError(path.string() + ": sample " + std::to_string(audio.samples.size()) +
                         " is NaN or infinite (corrupt floating-point audio)");
      // So is a finite sample near the float limit: resampling's filter sums such samples into
      // infinity and then NaN (found by fuzz/audio_fuzz), and spectra square them.
      if (std::abs(mono) > kMaxSampleMagnitude)
        throw AudioError(path.string() + ": sample " + std::to_string(audio.samples.size()) +
                         " is " + std::to_string(mono) +
                         ", beyond any audio level (corrupt floating-point audio)");
      audio.samples.push_back(mono);
    }
    if (frames < kBlockFrames) break;
  }
  if (sf_error(file.get()) != SF_ERR_NO_ERROR)
    throw AudioError(path.string() + ": decoding failed after " +
                     std::to_string(audio.samples.size()) +
                     " samples (truncated or corrupt?): " + sf_strerror(file.get()));
  if (info.frames > 0 && info.frames != SF_COUNT_MAX &&
      static_cast<sf_count_t>(audio.samples.size()) < info.frames)
    throw AudioError(path.string() + ": file is truncated: header promises " +
                     std::to_string(info.frames) + " samples, only " +
                     std::to_string(audio.samples.size()) + " could be read");
  check_not_truncated(file.get(), path);

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

AudioFileWriter::AudioFileWriter(fs::path path, int sample_rate) : path_(std::move(path)) {
  if (sample_rate <= 0) throw AudioError(path_.string() + ": sample rate must be positive");
  SF_INFO info{};
  info.samplerate = sample_rate;
  info.channels = 1;
  info.format = format_for_extension(path_);
  // Unique per process and per writer, so concurrent writers of the same path never share a
  // temporary; the last rename wins, and each rename is atomic.
  static std::atomic<unsigned> serial{0};
  temporary_ = path_;
  temporary_ += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
  file_ = sf_open(temporary_.c_str(), SFM_WRITE, &info);
  if (!file_) fail(std::string("cannot open for writing: ") + sf_strerror(nullptr));
  // Clip ourselves: libsndfile's float->int conversion wraps around on overflow otherwise.
  sf_command(file_, SFC_SET_CLIPPING, nullptr, SF_TRUE);
  apply_encoder_settings(file_, info.format);
}

AudioFileWriter::~AudioFileWriter() {
  if (file_) sf_close(file_);
  if (!temporary_.empty()) {
    std::error_code ignored;
    fs::remove(temporary_, ignored);
  }
}

void AudioFileWriter::fail(const std::string& why) {
  if (file_) sf_close(file_);
  file_ = nullptr;
  std::error_code ignored;
  fs::remove(temporary_, ignored);
  temporary_.clear();
  throw AudioError(path_.string() + ": " + why);
}

void AudioFileWriter::write(const float* samples, std::size_t count) {
  if (!file_) throw AudioError(path_.string() + ": write after the file was finished or failed");
  const sf_count_t written = sf_write_float(file_, samples, static_cast<sf_count_t>(count));
  if (written != static_cast<sf_count_t>(count))
    fail(std::string("write failed: ") + sf_strerror(file_));
}

void AudioFileWriter::finish() {
  if (!file_) throw AudioError(path_.string() + ": finish after the file was finished or failed");
  sf_write_sync(file_);  // on disk before the rename makes it visible
  // Encoders (vorbis, flac) flush their last pages on close, so its result matters too.
  const int close_error = sf_close(file_);
  file_ = nullptr;
  if (close_error != 0)
    fail(std::string("finishing the file failed: ") + sf_error_number(close_error));
  std::error_code ec;
  fs::rename(temporary_, path_, ec);
  if (ec) fail("cannot rename temporary file into place: " + ec.message());
  temporary_.clear();
}

void write_audio(const fs::path& path, const float* samples, std::size_t count, int sample_rate) {
  AudioFileWriter writer(path, sample_rate);
  writer.write(samples, count);
  writer.finish();
}

void write_raw_s16le(std::FILE* out, const float* samples, std::size_t count) {
  constexpr std::size_t kBlock = 4096;
  std::int16_t block[kBlock];
  for (std::size_t start = 0; start < count; start += kBlock) {
    std::size_t n = std::min(kBlock, count - start);
    for (std::size_t i = 0; i < n; ++i) {
      float v = samples[start + i];
      v = std::isnan(v) ? 0.0f : std::clamp(v, -1.0f, 1.0f);  // NaN would make lrint undefined
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
