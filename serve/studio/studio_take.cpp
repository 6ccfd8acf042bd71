#include "studio_take.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tts/serve/studio.h"

namespace tts::serve {

namespace {

std::uint32_t u32(const std::string& s, std::size_t at) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data() + at);
  return b[0] | b[1] << 8 | b[2] << 16 | static_cast<std::uint32_t>(b[3]) << 24;
}

std::uint16_t u16(const std::string& s, std::size_t at) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.data() + at);
  return static_cast<std::uint16_t>(b[0] | b[1] << 8);
}

double dbfs(double amplitude) { return amplitude > 0 ? 20.0 * std::log10(amplitude) : -120.0; }

// Quieter than this over the whole take is silence or a microphone far from the speaker; a take
// with more of its samples at full scale than this is distorted.
constexpr double kQuietestRmsDbfs = -50.0;
constexpr double kMostClipped = 0.01;

}  // namespace

TakeMeasure check_take(const std::string& wav, const TakeLimits& limits) {
  if (wav.empty()) throw StudioError(400, "the take is empty");
  if (wav.size() < 12 || wav.compare(0, 4, "RIFF") != 0 || wav.compare(8, 4, "WAVE") != 0)
    throw StudioError(415, "the take is not a WAV file (send 16-bit PCM WAV, mono)");
  int channels = 0, bits = 0, format = 0;
  TakeMeasure m;
  std::size_t data_at = 0, data_size = 0;
  for (std::size_t at = 12; at + 8 <= wav.size();) {
    const std::string id = wav.substr(at, 4);
    const std::size_t size = u32(wav, at + 4);
    const std::size_t body = at + 8;
    if (id == "fmt ") {
      if (size < 16 || body + 16 > wav.size())
        throw StudioError(400, "the take's WAV format chunk is truncated");
      format = u16(wav, body);
      channels = u16(wav, body + 2);
      m.sample_rate = static_cast<int>(u32(wav, body + 4));
      bits = u16(wav, body + 14);
    } else if (id == "data") {
      data_at = body;
      data_size = std::min(size, wav.size() - body);
      break;
    }
    at = body + size + (size & 1);
  }
  if (format == 0) throw StudioError(400, "the take's WAV file has no format chunk");
  if (format != 1 || bits != 16)
    throw StudioError(415, "the take is not 16-bit PCM (format " + std::to_string(format) + ", " +
                               std::to_string(bits) + " bits)");
  if (channels != 1)
    throw StudioError(415, "the take has " + std::to_string(channels) + " channels, not 1 (mono)");
  if (m.sample_rate < 8000 || m.sample_rate > 192000)
    throw StudioError(415, "the take's sample rate, " + std::to_string(m.sample_rate) +
                               " Hz, is outside 8000–192000 Hz");
  if (data_at == 0) throw StudioError(400, "the take's WAV file has no data chunk");
  const std::size_t count = data_size / 2;
  if (count == 0) throw StudioError(400, "the take holds no audio");
  m.seconds = static_cast<double>(count) / m.sample_rate;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", m.seconds);
  if (m.seconds < limits.min_seconds)
    throw StudioError(400, std::string("the take is ") + seconds + " s long, shorter than " +
                               std::to_string(limits.min_seconds).substr(0, 3) + " s");
  if (m.seconds > limits.max_seconds)
    throw StudioError(400, std::string("the take is ") + seconds + " s long, longer than the " +
                               std::to_string(static_cast<int>(limits.max_seconds)) +
                               " s a take may be");
  double sum = 0.0;
  int peak = 0;
  std::size_t full = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::int16_t x;
    std::memcpy(&x, wav.data() + data_at + 2 * i, 2);
    const int a = std::abs(static_cast<int>(x));
    peak = std::max(peak, a);
    full += a >= 32767;
    sum += static_cast<double>(x) * x;
  }
  m.peak_dbfs = dbfs(peak / 32768.0);
  m.rms_dbfs = dbfs(std::sqrt(sum / static_cast<double>(count)) / 32768.0);
  m.clipped = static_cast<double>(full) / static_cast<double>(count);
  if (m.rms_dbfs < kQuietestRmsDbfs)
    throw StudioError(422, "the take is silent or far too quiet (" +
                               std::to_string(static_cast<int>(std::lround(m.rms_dbfs))) +
                               " dBFS): come closer to the microphone or raise its level");
  if (m.clipped > kMostClipped)
    throw StudioError(422, "the take is clipped (" +
                               std::to_string(static_cast<int>(std::lround(m.clipped * 100))) +
                               "% of it at full scale): lower the microphone's level");
  return m;
}

}  // namespace tts::serve
