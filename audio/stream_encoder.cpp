#include "tts/audio/stream_encoder.h"

#include <sndfile.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "sndfile_formats.h"
#include "tts/audio/audio_file.h"

namespace tts::audio {

void append_s16le(std::string& out, const float* samples, std::size_t count) {
  std::size_t at = out.size();
  out.resize(at + 2 * count);
  for (std::size_t i = 0; i < count; ++i) {
    float v = std::clamp(samples[i], -1.0f, 1.0f);
    if (!std::isfinite(v)) v = 0.0f;  // NaN passes clamp unchanged
    auto s = static_cast<std::uint16_t>(static_cast<std::int16_t>(std::lrint(v * 32767.0f)));
    out[at + 2 * i] = static_cast<char>(s & 0xFF);
    out[at + 2 * i + 1] = static_cast<char>(s >> 8);
  }
}

namespace {

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put_u16(std::string& out, std::uint16_t v) {
  out.push_back(static_cast<char>(v & 0xFF));
  out.push_back(static_cast<char>(v >> 8));
}

class PcmEncoder : public StreamEncoder {
 public:
  PcmEncoder(int sample_rate, bool wav_header)
      : mime_(wav_header ? "audio/wav" : "audio/pcm;rate=" + std::to_string(sample_rate)) {
    if (!wav_header) return;
    // A canonical 44-byte header; the sizes say "to the end of the stream".
    header_ = "RIFF";
    put_u32(header_, 0xFFFFFFFFu);
    header_ += "WAVEfmt ";
    put_u32(header_, 16);
    put_u16(header_, 1);  // PCM
    put_u16(header_, 1);  // mono
    put_u32(header_, static_cast<std::uint32_t>(sample_rate));
    put_u32(header_, static_cast<std::uint32_t>(sample_rate) * 2);
    put_u16(header_, 2);   // block align
    put_u16(header_, 16);  // bits per sample
    header_ += "data";
    put_u32(header_, 0xFFFFFFFFu);
  }
  std::string encode(const float* samples, std::size_t count) override {
    std::string out = std::move(header_);
    header_.clear();
    append_s16le(out, samples, count);
    return out;
  }
  std::string finish() override { return std::move(header_); }  // the header of empty audio
  const std::string& mime_type() const override { return mime_; }

 private:
  std::string mime_, header_;
};

// libsndfile writing through virtual I/O into memory. Bytes handed out by take() are gone; a
// write that goes back before them (a header fix-up at close) is dropped, which leaves the
// streamed header's "unknown" values in place.
class SndfileEncoder : public StreamEncoder {
 public:
  SndfileEncoder(const SndfileFormat& format, int sample_rate) : mime_(format.mime) {
    SF_INFO info{};
    info.samplerate = sample_rate;
    info.channels = 1;
    info.format = format.format;
    io_.get_filelen = [](void* self) -> sf_count_t { return as(self).length(); };
    io_.seek = [](sf_count_t offset, int whence, void* self) -> sf_count_t {
      return as(self).seek(offset, whence);
    };
    io_.read = [](void*, sf_count_t, void*) -> sf_count_t { return 0; };
    io_.write = [](const void* data, sf_count_t n, void* self) -> sf_count_t {
      return as(self).write(static_cast<const char*>(data), n);
    };
    io_.tell = [](void* self) -> sf_count_t { return as(self).position_; };
    file_ = sf_open_virtual(&io_, SFM_WRITE, &info, this);
    if (!file_)
      throw AudioError(std::string("cannot encode ") + format.name + " at " +
                       std::to_string(sample_rate) + " Hz: " + sf_strerror(nullptr));
    // MP3 at a constant bit rate: LAME's variable-rate ("Xing") header frame has its frame count
    // filled in at the end, which a stream cannot do, and decoders would stop early.
    apply_encoder_settings(file_, format.format);
  }
  ~SndfileEncoder() override {
    if (file_) sf_close(file_);
  }
  std::string encode(const float* samples, std::size_t count) override {
    if (count && sf_write_float(file_, samples, static_cast<sf_count_t>(count)) !=
                     static_cast<sf_count_t>(count))
      throw AudioError(std::string("encoding failed: ") + sf_strerror(file_));
    return take();
  }
  std::string finish() override {
    if (file_) sf_close(file_);
    file_ = nullptr;
    return take();
  }
  const std::string& mime_type() const override { return mime_; }

 private:
  static SndfileEncoder& as(void* self) { return *static_cast<SndfileEncoder*>(self); }
  sf_count_t length() const { return static_cast<sf_count_t>(taken_ + pending_.size()); }
  sf_count_t seek(sf_count_t offset, int whence) {
    sf_count_t base = whence == SEEK_CUR ? position_ : whence == SEEK_END ? length() : 0;
    position_ = std::max<sf_count_t>(0, base + offset);
    return position_;
  }
  sf_count_t write(const char* data, sf_count_t n) {
    const sf_count_t written = n;
    sf_count_t start = position_;
    position_ += n;
    const auto taken = static_cast<sf_count_t>(taken_);
    if (start + n <= taken) return written;  // entirely within bytes already sent: dropped
    if (start < taken) {
      data += taken - start;
      n -= taken - start;
      start = taken;
    }
    auto at = static_cast<std::size_t>(start - taken);
    if (pending_.size() < at + static_cast<std::size_t>(n)) pending_.resize(at + n, '\0');
    std::memcpy(&pending_[at], data, static_cast<std::size_t>(n));
    return written;
  }
  std::string take() {
    std::string out;
    out.swap(pending_);
    taken_ += out.size();
    return out;
  }

  std::string mime_;
  SF_VIRTUAL_IO io_{};
  SNDFILE* file_ = nullptr;
  std::string pending_;
  std::size_t taken_ = 0;
  sf_count_t position_ = 0;
};

}  // namespace

std::unique_ptr<StreamEncoder> make_stream_encoder(const std::string& format, int sample_rate) {
  if (sample_rate <= 0) throw AudioError("stream encoder: sample rate must be positive");
  if (format == "wav") return std::make_unique<PcmEncoder>(sample_rate, true);
  if (format == "pcm") return std::make_unique<PcmEncoder>(sample_rate, false);
  for (const auto& f : kSndfileFormats) {
    if (format != f.name) continue;
    try {
      return std::make_unique<SndfileEncoder>(f, sample_rate);
    } catch (const AudioError& e) {
      std::string known;
      for (const auto& name : stream_formats(sample_rate))
        known += (known.empty() ? "" : ", ") + name;
      throw AudioError(std::string(e.what()) + " (this build encodes: " + known + ")");
    }
  }
  std::string known;
  for (const auto& name : stream_formats(sample_rate)) known += (known.empty() ? "" : ", ") + name;
  throw AudioError("unknown audio format \"" + format + "\" (known: " + known + ")");
}

std::vector<std::string> stream_formats(int sample_rate) {
  std::vector<std::string> names{"wav", "pcm"};
  for (const auto& f : kSndfileFormats) {
    SF_INFO info{};
    info.samplerate = sample_rate;
    info.channels = 1;
    info.format = f.format;
    if (sf_format_check(&info)) names.emplace_back(f.name);
  }
  return names;
}

}  // namespace tts::audio
