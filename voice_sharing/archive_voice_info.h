// What a .ttsvoice archive says of its voice, read without unpacking its weights. Private to
// tts_voice_sharing.
#pragma once

#include <filesystem>

#include "tts/engine/voice.h"

namespace tts::sharing {

// The archive's voice.json as engine::read_voice_info reads it, with `name` set to the name the
// archive installs as (ttsvoice.json's). Throws ArchiveError for an archive that is not a
// .ttsvoice or whose voice.json is refused.
engine::VoiceInfo read_archived_voice_info(const std::filesystem::path& file);

}  // namespace tts::sharing
