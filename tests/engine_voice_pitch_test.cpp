// The bundled voice follows a pitch shift: `SynthesisOptions::pitch_semitones` (what `tts say
// --pitch`, SSML <prosody pitch> and the C API's pitch_semitones set) moves the F0 of the audio,
// as the pitch tracker measures it: by the request where the voice shifts its audio (as the bundled
// voice does), the requested way and by part of it where its acoustic model does; a shift on the
// audio streams (its first chunk comes long before the sentence is vocoded); and a voice that can
// do neither refuses a shift instead of ignoring it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "temp_folder.h"
#include "tts/acoustic/model_files.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_random.h"
#include "tts/engine/voice_search.h"
#include "tts/kernels/pitch.h"
#include "tts/tts.h"

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

// A copy of the voice at `path` in `dir` whose voice.json says `method` (the weights are the same
// files), so that both ways of shifting are tested on the same models.
std::filesystem::path voice_shifting_by(const std::filesystem::path& path,
                                        const std::filesystem::path& dir, const char* method) {
  namespace fs = std::filesystem;
  fs::remove_all(dir);
  fs::copy(path, dir, fs::copy_options::recursive);
  nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "voice.json"));
  j["pitch_shift"] = method;
  std::ofstream(dir / "voice.json") << j.dump(2);
  return dir;
}

// The bundled voice when it is installed and shifts its pitch on the audio; otherwise null, with
// the reason in `why_not`.
std::shared_ptr<const tts::engine::Voice> voice_shifting_its_audio(std::string* why_not) {
  const auto path = tts::engine::find_voice("default");
  if (!path) {
    *why_not = "no default voice is installed";
    return nullptr;
  }
  auto voice = tts::engine::Voice::load(*path);
  if (voice->info().pitch_shift != tts::engine::PitchShiftMethod::kAudio) {
    *why_not = "the bundled voice shifts its pitch in the acoustic model";
    return nullptr;
  }
  return voice;
}

}  // namespace

// The bundled voice's models, shifting on the audio and by the acoustic model.
TEST(VoicePitch, ShiftMovesTheMeasuredF0OfTheBundledVoice) {
  namespace fs = std::filesystem;
  const auto path = tts::engine::find_voice("default");
  if (!path) GTEST_SKIP() << "no default voice is installed";
  if (!tts::engine::Voice::load(*path)->acoustic().predicts_pitch())
    GTEST_SKIP() << "the bundled voice's acoustic model does not predict pitch";
  const tts::testing_support::TempFolder folder;
  const fs::path dir = folder / "voice";
  for (const char* method : {"audio", "model"}) {
    SCOPED_TRACE(method);
    const std::shared_ptr<const tts::engine::Voice> voice =
        tts::engine::Voice::load(voice_shifting_by(*path, dir, method));
    const char* text = "The weather today is cloudy, with a little rain in the evening.";
    tts::engine::SynthesisOptions options;
    options.seed = 4;
    std::vector<double> shifts;
    std::vector<std::size_t> lengths;
    for (float semitones : {0.0f, -3.0f, 4.0f}) {
      options.pitch_semitones = semitones;
      const std::vector<float> audio = tts::engine::synthesize_all(voice, text, options);
      int voiced = 0;
      const double f0 = median_f0(audio, voice->features(), voiced);
      ASSERT_GT(voiced, 50) << semitones << " semitones: too few voiced frames to measure";
      shifts.push_back(f0);
      lengths.push_back(audio.size());
    }
    const double down = 12.0 * std::log2(shifts[1] / shifts[0]);
    const double up = 12.0 * std::log2(shifts[2] / shifts[0]);
    std::printf("%s: median F0 %.1f Hz; -3 st measured %+.2f st, +4 st measured %+.2f st\n", method,
                shifts[0], down, up);
    if (voice->info().pitch_shift == tts::engine::PitchShiftMethod::kAudio) {
      // Shifted on the audio: by what was asked (the quality report's target, 4 ± 0.5
      // semitones), and the timing is the unshifted voice's to the sample.
      EXPECT_NEAR(down, -3.0, 0.5);
      EXPECT_NEAR(up, 4.0, 0.5);
      EXPECT_EQ(lengths[1], lengths[0]);
      EXPECT_EQ(lengths[2], lengths[0]);
    } else {
      // A decoder renders only the pitches it heard its speaker speak, so a shift by the model is
      // realised only in part (the bundled voice's model: -1.7 and +2.1 semitones on this
      // sentence; docs/acoustic-model.md). It must go the requested way, by at least
      // a quarter, and never overshoot.
      EXPECT_LT(down, -0.75);
      EXPECT_GT(down, -4.0);
      EXPECT_GT(up, 1.0);
      EXPECT_LT(up, 5.0);
    }
  }
}

// A shift on the audio streams like any other audio: the chunk size changes no sample, and SSML's
// <prosody pitch="+4st"> shifts the bundled voice as --pitch +4 does.
TEST(VoicePitch, AShiftOnTheAudioStreamsTheSameAudioInAnyChunkSize) {
  std::string why_not;
  const auto voice = voice_shifting_its_audio(&why_not);
  if (!voice) GTEST_SKIP() << why_not;
  const char* text = "Press one. Then wait for the tone.";  // two sentences: two shifters
  tts::engine::SynthesisOptions options;
  options.seed = 2;
  options.pitch_semitones = 4.0f;
  const std::vector<float> whole = tts::engine::synthesize_all(voice, text, options);
  options.chunk_samples = 100;
  EXPECT_EQ(tts::engine::synthesize_all(voice, text, options), whole);
  options.chunk_samples = 2048;
  options.pitch_semitones = 0.0f;
  options.ssml = true;
  const std::vector<float> ssml = tts::engine::synthesize_all(
      voice,
      "<speak><prosody pitch=\"+4st\">Press one.</prosody> <prosody pitch=\"+4st\">Then wait "
      "for the tone.</prosody></speak>",
      options);
  EXPECT_EQ(ssml, whole);
}

// A shift on the audio hands audio over while the sentence is still being vocoded: the first chunk
// of a long sentence comes in a small part of the time the whole takes (it used to wait for the
// whole sentence: first audio 0.9 s of 1 s). Both times scale with the machine's speed, so the
// ratio holds on a busy one.
TEST(VoicePitch, AShiftOnTheAudioStartsBeforeTheSentenceIsVocoded) {
  std::string why_not;
  const auto voice = voice_shifting_its_audio(&why_not);
  if (!voice) GTEST_SKIP() << why_not;
  tts::engine::SynthesisOptions options;
  options.seed = 1;
  options.pitch_semitones = 4.0f;
  tts::engine::SynthesisStream stream(voice);
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  stream.start(
      "The weather today is cloudy, with a little rain in the evening and a cold wind from the "
      "north.",
      options);
  tts::engine::AudioChunk chunk;
  double first = -1.0;
  std::size_t samples = 0;
  while (stream.next(chunk)) {
    if (first < 0.0 && !chunk.samples.empty())
      first = std::chrono::duration<double>(clock::now() - start).count();
    samples += chunk.samples.size();
  }
  const double total = std::chrono::duration<double>(clock::now() - start).count();
  std::printf("%.1f s of audio: first chunk after %.3f s of %.3f s\n",
              static_cast<double>(samples) / voice->sample_rate(), first, total);
  ASSERT_GT(samples, static_cast<std::size_t>(3 * voice->sample_rate()));
  EXPECT_LT(first, 0.5 * total);
}

// The C API's pitch_semitones reaches the same model: +4 semitones through tts_synthesize_start
// moves the measured F0 as SynthesisOptions does.
TEST(VoicePitch, CApiPitchSemitonesIsHonoured) {
  const auto path = tts::engine::find_voice("default");
  if (!path) GTEST_SKIP() << "no default voice is installed";
  tts_voice* voice = nullptr;
  ASSERT_EQ(tts_voice_load(path->c_str(), nullptr, &voice), TTS_OK) << tts_last_error();
  tts_stream* stream = nullptr;
  ASSERT_EQ(tts_stream_create(voice, &stream), TTS_OK);
  const auto loaded = tts::engine::Voice::load(*path);
  if (!loaded->can_shift_pitch()) {
    tts_stream_free(stream);
    tts_voice_free(voice);
    GTEST_SKIP() << "the bundled voice cannot shift its pitch";
  }
  auto speak = [&](float semitones) {
    tts_synthesis_options o;
    tts_default_synthesis_options(&o);
    o.pitch_semitones = semitones;
    o.seed = 4;
    std::vector<float> audio;
    EXPECT_EQ(tts_synthesize_start(stream, "Please leave a message after the tone.", &o), TTS_OK)
        << tts_stream_last_error(stream);
    tts_chunk chunk;
    tts_chunk_init(&chunk);
    int status;
    while ((status = tts_synthesize_next(stream, &chunk)) == TTS_OK)
      audio.insert(audio.end(), chunk.samples, chunk.samples + chunk.count);
    EXPECT_EQ(status, TTS_DONE) << tts_stream_last_error(stream);
    int voiced = 0;
    const double f0 = median_f0(audio, loaded->features(), voiced);
    EXPECT_GT(voiced, 30);
    return f0;
  };
  const double plain = speak(0.0f), raised = speak(4.0f);
  const double shift = 12.0 * std::log2(raised / plain);
  std::printf("C API: +4 st measured %+.2f st\n", shift);
  // As above: the asked shift on the audio, at least a quarter of it by the model.
  const bool on_audio = loaded->info().pitch_shift == tts::engine::PitchShiftMethod::kAudio;
  EXPECT_GT(shift, on_audio ? 3.5 : 1.0) << plain << " Hz, " << raised << " Hz";
  EXPECT_LT(shift, on_audio ? 4.5 : 5.0) << plain << " Hz, " << raised << " Hz";
  tts_stream_free(stream);
  tts_voice_free(voice);
}

// A voice from before pitch and energy (acoustic format_version 2) still speaks, ignores SSML's
// <prosody pitch> (a hint), and refuses an explicit pitch shift with a message saying why.
TEST(VoicePitch, VoiceWithoutPitchRefusesAShift) {
  namespace fs = std::filesystem;
  const tts::testing_support::TempFolder folder;
  const fs::path dir = folder / "voice";
  tts::engine::create_random_voice(dir, {});
  {
    const auto files = tts::acoustic::load_acoustic_files(dir / "acoustic");
    tts::acoustic::AcousticConfig config = files.weights->config();
    config.pitch_energy = false;
    tts::acoustic::AcousticWeights old(config);
    for (const auto& e : old.parameters().entries())
      old.parameters().matrix(old.parameters().index_of(e.name)) =
          files.weights->parameters().matrix(files.weights->parameters().index_of(e.name));
    tts::acoustic::save_acoustic_model(dir / "acoustic", old, files.features, *files.symbols);
    tts::engine::VoiceManifest manifest;
    manifest.name = "pitchless";
    tts::engine::write_voice_manifest(dir, manifest, *files.symbols);
  }
  ASSERT_EQ(
      nlohmann::json::parse(std::ifstream(dir / "acoustic" / "acoustic.json")).at("format_version"),
      tts::acoustic::kAcousticFormatVersionWithoutPitch);
  tts_voice* voice = nullptr;
  ASSERT_EQ(tts_voice_load(dir.c_str(), nullptr, &voice), TTS_OK) << tts_last_error();
  tts_stream* stream = nullptr;
  ASSERT_EQ(tts_stream_create(voice, &stream), TTS_OK);
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.pitch_semitones = 2.0f;
  EXPECT_EQ(tts_synthesize_start(stream, "Hello.", &o), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tts_stream_last_error(stream)).find("does not predict pitch"),
            std::string::npos)
      << tts_stream_last_error(stream);
  o.pitch_semitones = 0.0f;
  o.ssml = 1;
  ASSERT_EQ(
      tts_synthesize_start(stream, "<speak><prosody pitch=\"+20%\">Hello.</prosody></speak>", &o),
      TTS_OK)
      << tts_stream_last_error(stream);
  tts_chunk chunk;
  tts_chunk_init(&chunk);
  std::size_t samples = 0;
  int status;
  while ((status = tts_synthesize_next(stream, &chunk)) == TTS_OK) samples += chunk.count;
  EXPECT_EQ(status, TTS_DONE) << tts_stream_last_error(stream);
  EXPECT_GT(samples, 0u);
  tts_stream_free(stream);
  tts_voice_free(voice);
}
