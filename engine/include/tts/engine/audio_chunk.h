// What a synthesis stream hands its caller: chunks of audio, each with the sentence it belongs to,
// where in that sentence it starts, the phoneme sounding at its start and the SSML marks it holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tts::engine {

// One symbol of a sentence and the samples it sounds in, counted from the sentence's first sample:
// [start, start + count). From the acoustic model's predicted durations.
struct PhonemeSpan {
  std::string symbol;  // as in the voice's symbol table: IPA, " " word boundary, "^"/"$" the edges
  std::size_t start = 0, count = 0;
};

// An SSML <mark> of a sentence: before symbol `symbol` of its alignment (the first symbol of the
// word after the mark), at sample `sample` of the sentence's audio (that symbol's `start`); a mark
// after the sentence's last word has symbol == alignment.size() and the sentence's audio length.
struct SentenceMark {
  std::string name;
  std::size_t symbol = 0;
  std::size_t sample = 0;
};

// An SSML <mark> as the audio reaches it: due when samples[sample] of its chunk is played (after
// the `sample` samples before it). 0 <= sample < samples.size(), except that marks at the very end
// of the input come with the last chunk at sample == samples.size(). Every mark of the input is in
// exactly one chunk, in document order; input with marks but no audio gets one empty last chunk.
struct ChunkMark {
  std::string name;
  std::size_t sample = 0;           // offset in this chunk
  std::uint64_t stream_sample = 0;  // offset from the first sample of the stream
};

// What a chunk belongs to. Shared by all the chunks of one sentence.
struct SentenceInfo {
  int index = -1;        // 0, 1, … in input order; -1 for a pause from an SSML <break>
  std::string text;      // the sentence as split from the input (empty for a pause)
  std::string phonemes;  // its IPA (empty for a pause)
  // Every symbol of the sentence in order, tiling its audio (without the silence after it): what
  // lip-sync and word highlighting need. Empty for a pause.
  std::vector<PhonemeSpan> alignment;
  std::vector<SentenceMark> marks;  // its SSML marks, in order (the chunks report them too)
};

struct AudioChunk {
  std::vector<float> samples;  // mono, nominally in [-1, 1]
  int sample_rate = 0;
  bool is_last = false;  // the last chunk of the whole input
  std::shared_ptr<const SentenceInfo> sentence;
  std::string phoneme;              // the phoneme symbol sounding at the chunk's first sample
  std::size_t sentence_offset = 0;  // sample offset of the chunk within its sentence's audio
  std::vector<ChunkMark> marks;     // SSML marks falling in this chunk, in order
};

}  // namespace tts::engine
