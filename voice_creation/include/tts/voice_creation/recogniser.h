// An independent judge of the words a voice says: pocketsphinx (Debian's pocketsphinx and
// pocketsphinx-en-us, US English only), the recogniser tools/quality-report uses. Each file is
// brought to 16 kHz mono at one active speech level first, because the recogniser's errors move
// with the level, and a voice speaking louder than another would be judged for its loudness.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tts::creation {

// The level every file is brought to, dBov (as tools/quality/scoring.py's SPEECH_LEVEL_DBOV).
constexpr double kRecognitionLevelDbov = -26.0;

// Why the recogniser cannot run here (the program or its English model is missing), or nothing.
std::optional<std::string> recogniser_missing();

// "pocketsphinx 0.8+5prealpha+1-15, model pocketsphinx-en-us ..." where dpkg knows the packages.
std::string recogniser_version();

// The level of speech in `samples` (full scale 1.0), dBov: the RMS of the 10 ms frames within 30
// dB of the loudest frame, so that pauses and trimmed silence do not lower it. -inf for silence.
double active_speech_level_dbov(const std::vector<float>& samples, int sample_rate);

// What the recogniser hears in each file, in order: every file read, resampled to 16 kHz, levelled
// to kRecognitionLevelDbov and decoded by pocketsphinx_batch in `jobs` processes (the model is
// loaded once per process). `work` receives the levelled audio and the recogniser's logs. Throws
// std::runtime_error naming the file or the recogniser's log when it fails.
std::vector<std::string> recognise_english(const std::vector<std::filesystem::path>& files,
                                           const std::filesystem::path& work, int jobs);

}  // namespace tts::creation
