// Encodes audio into the bytes of a file format as the samples arrive, for sending over a socket
// before the synthesis has finished (`tts serve`). Each call returns the bytes that are ready; an
// encoder that needs more samples for a frame returns nothing yet. The bytes concatenate to a file
// that libsndfile, ffmpeg and the browsers read:
//
//   wav    16-bit PCM; the RIFF and data sizes are 0xFFFFFFFF ("until the end of the stream"),
//          as other streaming servers write them, because the length is not known in advance
//   pcm    raw signed 16-bit little-endian samples, no header
//   flac   FLAC in its native container; the total-length field of STREAMINFO stays 0 (unknown)
//   ogg    Ogg Vorbis;  opus: Ogg Opus (8, 12, 16, 24 or 48 kHz only);  mp3: MPEG layer III
//          (where the libsndfile build encodes them: stream_formats() lists those that work)
//
// libsndfile does the compressed formats through its virtual I/O: it writes forward, and the
// header fields it would go back to fix at the end of a seekable file are left as written.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace tts::audio {

class StreamEncoder {
 public:
  virtual ~StreamEncoder() = default;
  // The bytes of the header and of `count` more samples that are ready (possibly none).
  virtual std::string encode(const float* samples, std::size_t count) = 0;
  // The remaining bytes; the encoder takes no more samples afterwards.
  virtual std::string finish() = 0;
  virtual const std::string& mime_type() const = 0;
};

// The format names make_stream_encoder accepts at `sample_rate` with this machine's libsndfile.
std::vector<std::string> stream_formats(int sample_rate);

// Throws AudioError naming the format when it is unknown or cannot be encoded at `sample_rate`
// (the message lists the formats that can).
std::unique_ptr<StreamEncoder> make_stream_encoder(const std::string& format, int sample_rate);

// Converts to signed 16-bit little-endian, clipping to [-1, 1], appended to `out`.
void append_s16le(std::string& out, const float* samples, std::size_t count);

}  // namespace tts::audio
