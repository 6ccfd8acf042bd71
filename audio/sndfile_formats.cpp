#include "sndfile_formats.h"

namespace tts::audio {

namespace {

// libsndfile's LAME wrapper maps a compression level in [0, 1] onto the bit rates of the MPEG
// version the sample rate selects: 0.6 gives 64 kbit/s at 16, 22.05 and 24 kHz (MPEG-2), about
// 160 at 32 to 48 kHz (MPEG-1).
constexpr double kMp3CompressionLevel = 0.6;

}  // namespace

const SndfileFormat* find_sndfile_format(const std::string& name) {
  for (const SndfileFormat& f : kSndfileFormats)
    if (name == f.name) return &f;
  return nullptr;
}

void apply_encoder_settings(SNDFILE* file, int format) {
  if ((format & SF_FORMAT_TYPEMASK) != SF_FORMAT_MPEG) return;
  int mode = SF_BITRATE_MODE_CONSTANT;
  sf_command(file, SFC_SET_BITRATE_MODE, &mode, sizeof mode);
  double level = kMp3CompressionLevel;
  sf_command(file, SFC_SET_COMPRESSION_LEVEL, &level, sizeof level);
}

}  // namespace tts::audio
