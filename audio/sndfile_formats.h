// The compressed formats tts writes through libsndfile, one table for files (`tts say -o`) and
// for streams (`tts serve`), so that both encode a format alike.
#pragma once

#include <sndfile.h>

#include <string>

namespace tts::audio {

struct SndfileFormat {
  const char* name;  // also the file extension, without its dot
  int format;        // libsndfile's SF_FORMAT_* bits
  const char* mime;  // for HTTP
};

inline constexpr SndfileFormat kSndfileFormats[] = {
    {"flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, "audio/flac"},
    {"ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS, "audio/ogg"},
    {"opus", SF_FORMAT_OGG | SF_FORMAT_OPUS, "audio/ogg; codecs=opus"},  // 8-48 kHz, 5 rates
    {"mp3", SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, "audio/mpeg"},
};

// The format named `name` (lowercase), or nullptr.
const SndfileFormat* find_sndfile_format(const std::string& name);

// Settings a freshly opened writer of `format` needs before its first sample. MP3 is written at a
// constant 64 kbit/s for the voices' 16 to 24 kHz (a stream cannot fill in the frame count that a
// variable rate's header needs, and libsndfile's default, 24 kbit/s, smears consonants); the other
// formats keep libsndfile's defaults (Opus: about 24 kbit/s, plenty for speech).
void apply_encoder_settings(SNDFILE* file, int format);

}  // namespace tts::audio
