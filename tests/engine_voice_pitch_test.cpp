// The bundled voice follows a pitch shift: `SynthesisOptions::pitch_semitones` (what `tts say
// --pitch`, SSML <prosody pitch> and the C API's pitch_semitones set) moves the F0 of the audio,
// as the pitch tracker measures it, by about that many semitones, and a voice whose acoustic model
// predates pitch refuses a shift instead of ignoring it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "tts/engine/pipeline.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_search.h"
#include "tts/kernels/pitch.h"

namespace {

// Median F0 (Hz) over the voiced frames of `audio`, and how many there were.
double median_f0(const std::vector<float>& audio, const tts::kernels::MelConfig& features,
                 int& voiced) {
  std::vector<float> f0 = tts::kernels::track_pitch(audio.data(), audio.size(), features);
  f0.erase(std::remove_if(f0.begin(), f0.end(), [](float f) { return !(f > 0.0f); }), f0.end());
  voiced = static_cast<int>(f0.size());
  if (f0.empty()) return 0.0;
  std::nth_element(f0.begin(), f0.begin() + f0.size() / 2, f0.end());
  return f0[f0.size() / 2];
}

}  // namespace

TEST(VoicePitch, ShiftMovesTheMeasuredF0OfTheBundledVoice) {
  const auto path = tts::engine::find_voice("default");
  if (!path) GTEST_SKIP() << "no default voice is installed";
  const std::shared_ptr<const tts::engine::Voice> voice = tts::engine::Voice::load(*path);
  if (!voice->acoustic().predicts_pitch())
    GTEST_SKIP() << "the bundled voice's acoustic model does not predict pitch";
  const char* text = "The weather today is cloudy, with a little rain in the evening.";
  tts::engine::SynthesisOptions options;
  options.seed = 4;
  std::vector<double> shifts;
  for (float semitones : {0.0f, -3.0f, 4.0f}) {
    options.pitch_semitones = semitones;
    const std::vector<float> audio = tts::engine::synthesize_all(voice, text, options);
    int voiced = 0;
    const double f0 = median_f0(audio, voice->features(), voiced);
    ASSERT_GT(voiced, 50) << semitones << " semitones: too few voiced frames to measure";
    shifts.push_back(f0);
  }
  // The vocoder samples, so the measured shift is not exact: within a semitone of the request.
  const double down = 12.0 * std::log2(shifts[1] / shifts[0]);
  const double up = 12.0 * std::log2(shifts[2] / shifts[0]);
  std::printf("median F0 %.1f Hz; -3 st measured %+.2f st, +4 st measured %+.2f st\n", shifts[0],
              down, up);
  EXPECT_NEAR(down, -3.0, 1.0);
  EXPECT_NEAR(up, 4.0, 1.0);
}
