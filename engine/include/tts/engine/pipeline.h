// The streaming synthesis pipeline: text → sentences → phoneme ids → mel frames on a frontend
// thread that runs ahead of the vocoder; the vocoder samples each sentence on its own thread and
// hands audio chunks to the caller through a bounded queue. Once audio has started, the caller
// (speakers, file, stdout, C callback) only ever waits on the vocoder, never on the frontend.
//
//   frontend thread ──[sentences, at most sentences_ahead]──► vocoder thread ──[chunks]──► next()
//
// Determinism: sentence i is sampled with its own seed derived from (seed, i), so the audio does
// not depend on the chunk size, the thread count or how fast the caller pulls: the chunks of a
// stream concatenate to exactly the audio of synthesize_all() with the same options.
//
// Thread-safety: a SynthesisStream is used by one thread at a time, except cancel(), which any
// thread may call at any time while the stream exists. Streams share the immutable Voice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tts/engine/audio_chunk.h"
#include "tts/engine/voice.h"
#include "tts/kernels/device.h"

namespace tts::engine {

class StreamBatch;

// Thrown by next() after cancel().
class SynthesisCancelled : public std::runtime_error {
 public:
  SynthesisCancelled() : std::runtime_error("synthesis cancelled") {}
};

// Bad text or SSML (invalid UTF-8, malformed markup, unknown phonemes): the caller's input.
class SynthesisInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SynthesisOptions {
  float rate = 1.0f;              // speaking rate: 2 = twice as fast (acoustic durations / rate)
  float pitch_semitones = 0.0f;   // pitch shift (Voice::can_shift_pitch; how: PitchShiftMethod)
  float volume = 1.0f;            // amplitude multiplier
  float sentence_silence = 0.2f;  // seconds of silence between sentences
  bool ssml = false;              // the text is SSML (<speak>…</speak>)
  std::uint64_t seed = 0;
  float temperature = 1.0f;  // of the vocoder's sampling; 0 = arg-max
  int threads = 1;           // vocoder threads of this stream (audio does not depend on it)
  // Where the vocoder samples. kCuda needs a build with the CUDA backend and a GPU; with the same
  // seed it gives the CPU's audio except after a near-tie draw (tts/vocoder/sampler_interface.h).
  kernels::Device device = kernels::Device::kCpu;
  // When set, the stream is sampled as a member of this serving batch (stream_batch.h), which
  // must be of the voice's vocoder, instead of by a sampler of its own on `device` (`threads` then
  // unused): the same audio, bit for bit on the CPU. The stream fails if the batch has no free
  // slot when its vocoder starts; a server admits no more streams than the batch has slots.
  std::shared_ptr<StreamBatch> batch;
  // Samples per chunk handed out; the stream's first chunk is at most 256 (audio starts early)
  // and the last of a sentence may be shorter.
  std::size_t chunk_samples = 2048;
  std::size_t queue_chunks = 8;     // bound of the vocoder → caller queue
  std::size_t sentences_ahead = 2;  // bound of the frontend → vocoder queue
  // The language of the text, a BCP 47 tag the voice speaks (VoiceInfo::languages; matched as
  // frontend::match_language: the tag, then its primary subtag): its text rules, sentence
  // splitting and espeak-ng voice read the text, and SSML xml:lang switches from it. Empty: the
  // voice's first language. One the voice does not speak makes start() throw.
  std::string language;
  // Throws std::invalid_argument naming the field.
  void validate() const;
};

class SynthesisStream {
 public:
  explicit SynthesisStream(std::shared_ptr<const Voice> voice);
  ~SynthesisStream();  // cancels and joins the worker threads
  SynthesisStream(const SynthesisStream&) = delete;
  SynthesisStream& operator=(const SynthesisStream&) = delete;

  // Starts synthesising `text` (UTF-8 plain text, or SSML with options.ssml). A synthesis still
  // running is cancelled first. Throws std::invalid_argument for bad options.
  void start(std::string text, const SynthesisOptions& options);

  // Waits for the next chunk. Returns false when the input is done (after the chunk with
  // is_last, or at once for input with nothing to say). Throws SynthesisCancelled after cancel(),
  // SynthesisInputError for bad text/SSML (after the audio of the sentences before it), and
  // std::runtime_error for other failures. Throws std::logic_error before start().
  bool next(AudioChunk& chunk);

  // Stops the current synthesis as soon as possible: workers stop within one chunk, a waiting
  // next() returns. Safe from any thread; a no-op when nothing runs.
  void cancel();

  const Voice& voice() const { return *voice_; }

 private:
  struct Run;
  void stop();

  std::shared_ptr<const Voice> voice_;
  std::shared_ptr<Run> run_;  // replaced only by the owning thread, under run_mutex_
  std::mutex run_mutex_;      // lets cancel() reach run_ from another thread
};

// Synthesises all of `text` at once: the concatenation of a stream's chunks.
std::vector<float> synthesize_all(std::shared_ptr<const Voice> voice, const std::string& text,
                                  const SynthesisOptions& options);

}  // namespace tts::engine
