// The chunks a synthesis stream hands its caller, made from the stream's items in order: sentences
// (their samples fed as they are made), pauses and marks. Bookkeeping only: no threads, no
// sampler, no waiting; whoever feeds it decides when, and what to do with each chunk. It
//   - cuts a sentence's samples into chunks of at most chunk_samples, the stream's first chunk of
//     speech at most first_chunk_samples so that audio starts sooner; a chunk never spans two add()
//     calls, so a block of next_chunk_samples() is one chunk;
//   - makes sentence_silence samples of silence between two sentences (none after the last, and
//     none where a pause stands between them) and a pause's samples of silence, in chunks of at
//     most chunk_samples;
//   - tells each chunk its sentence (the sentence before it, for the silence after one; a pause of
//     its own, index -1, for a pause), its offset in that sentence's audio and the phoneme sounding
//     at its first sample;
//   - puts every SSML mark in the chunk holding the sample it is due at: a sentence's marks at
//     their sample of its audio, marks between sentences where the stream has got to, and those due
//     at the very end in the last chunk at its end (in one empty chunk when there is no audio);
//   - holds the newest chunk back until the next shows whether it is the input's last (is_last);
//     a chunk that more of its sentence follows cannot be, and goes out at once, so that the first
//     audio need not wait for the second chunk to be made.
// However the samples are split into add() calls, the chunks concatenate to the same audio with
// the same marks at the same stream samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tts/engine/audio_chunk.h"

namespace tts::engine {

struct ChunkingOptions {
  int sample_rate = 0;                    // of every chunk
  std::size_t chunk_samples = 2048;       // at most in a chunk
  std::size_t first_chunk_samples = 256;  // at most in the stream's first chunk of speech
  std::size_t sentence_silence = 0;       // samples of silence between two sentences
};

class ChunkAssembler {
 public:
  // `deliver` gets each finished chunk, in stream order; it may throw to abandon the stream, after
  // which the assembler is not to be used. `first_made`, when given, is called once, when the
  // stream's first chunk is made (it may go out later: see above).
  ChunkAssembler(const ChunkingOptions& options, std::function<void(AudioChunk)> deliver,
                 std::function<void()> first_made = nullptr);

  // The most samples the next chunk of speech may hold: what to ask the sampler for.
  std::size_t next_chunk_samples() const;

  // An SSML mark outside any sentence, due where the stream has got to.
  void mark(std::string name);

  // `samples` of silence (an SSML <break>); no sentence silence follows the sentence before it.
  void pause(std::size_t samples);

  // Starts a sentence of `samples` samples, after the silence that follows the sentence before
  // it; its marks fall due at their samples. symbol_ends[k] is the sample of the sentence where
  // symbol k of its alignment stops sounding, by its durations (not cut at the audio's end): a
  // chunk's phoneme is the first symbol still sounding at its first sample (none past the last).
  void begin_sentence(std::shared_ptr<const SentenceInfo> sentence,
                      std::vector<std::size_t> symbol_ends, std::size_t samples);
  // The sentence's next samples.
  void add(std::vector<float> samples);
  void end_sentence();

  // The input is done: the chunk held back goes out as the last, with every mark still due.
  void finish();

  // The chunk held back, as it is (not marked last): what goes out before an error.
  std::optional<AudioChunk> take_held();

  // Samples made so far (in chunks delivered or held).
  std::uint64_t position() const { return position_; }

 private:
  void silence(std::size_t count, const std::shared_ptr<const SentenceInfo>& sentence,
               std::size_t offset);
  // Takes the marks due in `chunk`, delivers the chunk held before it and holds this one.
  void hand_over(AudioChunk chunk);
  void deliver_held();

  ChunkingOptions options_;
  std::function<void(AudioChunk)> deliver_;
  std::function<void()> first_made_;
  std::optional<AudioChunk> held_;  // the newest chunk, until we know whether it is the last
  bool started_ = false;            // a chunk has been made (the stream's first is short)
  std::uint64_t position_ = 0;
  std::deque<ChunkMark> due_;  // marks not yet in a chunk, in order, at stream samples
  // The sentence being fed, and how much of it has been.
  std::shared_ptr<const SentenceInfo> sentence_;
  std::vector<std::size_t> symbol_ends_;
  std::size_t sentence_samples_ = 0, offset_ = 0;
  // The sentence just spoken, if silence is to follow it, and its length.
  std::shared_ptr<const SentenceInfo> previous_;
  std::size_t previous_length_ = 0;
};

}  // namespace tts::engine
