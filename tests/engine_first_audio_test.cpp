// First audio early: a chunk that has more of its sentence after it goes to the caller
// as soon as it is made, instead of waiting until the next chunk is made. The chunks and the audio
// must not change: for a given seed they are the same samples as the sentence-by-sentence
// reference written out below (acoustic model, then the WaveNet over the whole sentence), for
// sentences from two chunks (the first is 256 samples) to several seconds long.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <vector>

#include "random_voice_suite.h"
#include "sanitizer_build.h"
#include "tts/engine/pipeline.h"
#include "tts/kernels/seed.h"
#include "tts/vocoder/sample_codec.h"
#include "tts/vocoder/sampler.h"

namespace fs = std::filesystem;
using namespace tts;
using namespace tts::engine;

namespace {

class FirstAudio : public tts::testing_support::RandomVoiceSuite<FirstAudio> {};

// The audio of plain `text` as the pipeline has always made it, without the pipeline: each
// sentence's frames from the acoustic model (padded to two frames), sampled at once by the WaveNet
// (in the voice's sampling weights) with the sentence's seed, decoded, scaled; the sentence silence
// between sentences.
std::vector<float> reference(const Voice& voice, const std::string& text, const SynthesisOptions& o,
                             std::vector<std::size_t>* lengths) {
  std::vector<float> audio;
  int index = 0;
  const auto& weights = *voice.vocoder().weights;
  const auto silence = static_cast<std::size_t>(
      std::lround(static_cast<double>(o.sentence_silence) * voice.sample_rate()));
  voice.text().process(text, [&](frontend::PhonemizedSentence s) {
    if (s.phonemes.empty()) return;
    acoustic::AcousticControls controls;
    controls.rate = o.rate;
    kernels::Matrix mel =
        voice.acoustic().synthesize(std::vector<int32_t>(s.ids.begin(), s.ids.end()), controls).mel;
    if (mel.cols() < 2) {
      const Eigen::Index had = mel.cols();
      mel.conservativeResize(mel.rows(), 2);
      mel.rightCols(2 - had).setConstant(std::log(voice.features().log_floor));
    }
    if (index > 0) audio.insert(audio.end(), silence, 0.0f);
    vocoder::SamplerOptions so;
    so.seed = kernels::sentence_seed(o.seed, static_cast<std::size_t>(index));
    so.temperature = o.temperature;
    vocoder::WaveNetSampler sampler(weights, so, voice.samplers().compact_weights());
    sampler.start(mel);
    std::vector<int32_t> classes(sampler.total_samples());
    EXPECT_EQ(sampler.generate(classes.data(), classes.size()), classes.size());
    vocoder::SampleDecoder decoder(weights.config());
    for (int32_t c : classes) audio.push_back(o.volume * decoder.decode(c));
    if (lengths) lengths->push_back(classes.size());
    ++index;
  });
  return audio;
}

std::vector<AudioChunk> all_chunks(const std::shared_ptr<const Voice>& voice,
                                   const std::string& text, const SynthesisOptions& o) {
  SynthesisStream stream(voice);
  stream.start(text, o);
  std::vector<AudioChunk> chunks;
  AudioChunk c;
  while (stream.next(c)) chunks.push_back(c);
  return chunks;
}

// Synthesises `text` through the stream and checks it against the reference: the same samples,
// and the chunking as before (the stream's first chunk at most 256 samples, every later one at
// most `chunk`, only the very last is_last). Returns the first sentence's length in samples.
std::size_t expect_reference_audio(const std::shared_ptr<const Voice>& voice, const char* text,
                                   float rate, std::size_t chunk) {
  SCOPED_TRACE(testing::Message() << "rate " << rate << ", chunk " << chunk << ": " << text);
  SynthesisOptions o;
  o.rate = rate;
  o.seed = 7;
  o.chunk_samples = chunk;
  std::vector<std::size_t> lengths;
  const std::vector<float> expected = reference(*voice, text, o, &lengths);
  EXPECT_FALSE(lengths.empty());
  if (lengths.empty()) return 0;
  const auto chunks = all_chunks(voice, text, o);
  std::vector<float> got;
  for (const auto& c : chunks) got.insert(got.end(), c.samples.begin(), c.samples.end());
  EXPECT_EQ(got, expected);
  EXPECT_FALSE(chunks.empty());
  if (chunks.empty()) return lengths.front();
  EXPECT_EQ(chunks.front().samples.size(), std::min<std::size_t>({256, chunk, lengths.front()}));
  for (std::size_t i = 1; i < chunks.size(); ++i) EXPECT_LE(chunks[i].samples.size(), chunk);
  for (std::size_t i = 0; i < chunks.size(); ++i)
    EXPECT_EQ(chunks[i].is_last, i + 1 == chunks.size());
  return lengths.front();
}

// Sentences of very different lengths, one sentence or several.
const char* const kTexts[] = {
    "Hi.",
    "Yes.",
    "Hello there, how are you?",
    "The quick brown fox jumps over the lazy dog, and then it runs far away into the woods.",
    "Hi. The quick brown fox jumps over the lazy dog. Yes!",
};

TEST_F(FirstAudio, ChunksAreTheReferenceAudioForEverySentenceLength) {
  // Sanitizer builds (several times slower) sweep one rate and the two extreme chunk sizes.
  const std::vector<float> rates =
      TTS_SANITIZER_BUILD ? std::vector<float>{4.0f} : std::vector<float>{10.0f, 4.0f, 1.0f};
  const std::vector<std::size_t> chunks =
      TTS_SANITIZER_BUILD ? std::vector<std::size_t>{300, std::size_t{1} << 20}
                          : std::vector<std::size_t>{2048, 300, std::size_t{1} << 20};
  for (float rate : rates)
    for (const char* text : kTexts)
      for (std::size_t chunk : chunks) expect_reference_audio(voice(), text, rate, chunk);
}

TEST(FirstAudioBundledVoice, ChunksAreTheReferenceAudioFromTheShortestSentenceUp) {
  // The bundled voice's real durations. Its shortest sentence, "Uh." at rate 10, lasts three hops
  // (400 samples): the stream's first chunk and a short last one. (No sentence of this voice is
  // shorter than the first chunk: every phone takes a frame, and the edges and the full stop
  // take some.)
  const auto voice = Voice::load(fs::path(TTS_SOURCE_DIR) / "voices" / "default");
  EXPECT_LT(expect_reference_audio(voice, "Uh.", 10.0f, 2048), 2u * 256u);
  expect_reference_audio(voice, "Uh. Hi.", 10.0f, 300);
  if (TTS_SANITIZER_BUILD) return;  // the longer ones: seconds of the full voice's vocoder each
  expect_reference_audio(voice, "Yes. Hi.", 4.0f, 2048);
  expect_reference_audio(voice, "Hello there, how are you? Fine.", 2.0f, 2048);
  expect_reference_audio(voice, "Hello there, how are you? Fine.", 2.0f, 300);
  // At its own rate a sentence's frames come in two parts (the first window, then the rest): the
  // chunks, of their sizes, are still the reference audio.
  expect_reference_audio(voice, "Hello there, how are you today?", 1.0f, 300);
  SynthesisOptions o;
  o.chunk_samples = 300;
  const auto chunks = all_chunks(voice, "Hello there, how are you today?", o);
  ASSERT_GT(chunks.size(), 30u);  // past the first window's 31 hops
  for (std::size_t i = 1; i + 1 < chunks.size(); ++i) EXPECT_EQ(chunks[i].samples.size(), 300u);
}

TEST_F(FirstAudio, TheFirstChunkDoesNotWaitForTheRestOfTheSentence) {
  // One long sentence in chunks larger than the sentence: the first chunk (256 samples) comes out
  // long before the second (all the rest of the sentence) has been made, not held until the second
  // exists so that both arrive together.
  SynthesisOptions o;
  o.chunk_samples = std::size_t{1} << 20;
  const std::string text =
      "The quick brown fox jumps over the lazy dog, and then it runs far away into the woods, "
      "where nobody will ever find it again.";
  using Clock = std::chrono::steady_clock;
  SynthesisStream stream(voice());
  const auto start = Clock::now();
  stream.start(text, o);
  AudioChunk first, second;
  ASSERT_TRUE(stream.next(first));
  const double t_first = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_TRUE(stream.next(second));
  const double t_second = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(first.samples.size(), 256u);
  ASSERT_GT(second.samples.size(), 50u * first.samples.size());  // the sampling dominates
  EXPECT_LT(t_first, 0.5 * t_second) << "first " << t_first << " s, second " << t_second << " s";
}

}  // namespace
