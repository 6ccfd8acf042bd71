// The C API's chunks (tts.h): the audio with its sentence, the sentence's phoneme alignment tiling
// its samples, and SSML marks at the sample of their word, alike when pulled, through the callback
// and from C (c_api_header.c); a caller built against an older, smaller tts_chunk is never written
// past its struct.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "c_api_stream_suite.h"
#include "tts/tts.h"

extern "C" long c_marks(const char* voice_path, const char* ssml, char* out, size_t size);

namespace {

const char kText[] = "Hello there. Yes.";

class CApiChunks : public tts::testing_support::CApiStreamSuite<CApiChunks> {};

TEST_F(CApiChunks, ChunksCarryEverything) {
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.chunk_samples = 400;
  o.rate = 6.0f;
  ASSERT_EQ(tts_synthesize_start(stream_, kText, &o), TTS_OK);
  tts_chunk c;
  tts_chunk_init(&c);
  int rc, last = 0, chunks = 0, max_sentence = -1;
  while ((rc = tts_synthesize_next(stream_, &c)) == TTS_OK) {
    ++chunks;
    EXPECT_EQ(c.sample_rate, 16000);
    EXPECT_LE(c.count, 400u);
    ASSERT_NE(c.sentence_text, nullptr);
    ASSERT_NE(c.phonemes, nullptr);
    ASSERT_NE(c.phoneme, nullptr);
    max_sentence = std::max(max_sentence, c.sentence_index);
    if (c.sentence_index == 0) {
      EXPECT_STREQ(c.sentence_text, "Hello there.");
    }
    last = c.is_last;
  }
  EXPECT_EQ(rc, TTS_DONE);
  EXPECT_EQ(last, 1);
  EXPECT_EQ(max_sentence, 1);
  EXPECT_GT(chunks, 2);
}

TEST_F(CApiChunks, ChunksCarryTheSentencesAlignmentTilingItsAudio) {
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.chunk_samples = 300;
  o.rate = 6.0f;
  o.sentence_silence = 0.0f;  // so that a sentence's chunks are exactly its aligned audio
  ASSERT_EQ(tts_synthesize_start(stream_, kText, &o), TTS_OK);
  tts_chunk c;
  tts_chunk_init(&c);
  std::vector<std::size_t> sentence_samples(2, 0);
  std::vector<std::vector<std::string>> symbols(2);
  std::vector<std::size_t> aligned_samples(2, 0);
  int rc, chunks = 0;
  while ((rc = tts_synthesize_next(stream_, &c)) == TTS_OK) {
    ++chunks;
    ASSERT_GE(c.sentence_index, 0);
    ASSERT_LT(c.sentence_index, 2);
    const auto sentence = static_cast<std::size_t>(c.sentence_index);
    ASSERT_NE(c.alignment, nullptr);
    ASSERT_GT(c.alignment_count, 2u);
    // The spans tile the sentence from sample 0, and the chunk's `phoneme` is the symbol of the
    // span its first sample falls in.
    std::size_t at = 0;
    std::vector<std::string> names;
    std::string sounding;
    for (std::size_t k = 0; k < c.alignment_count; ++k) {
      EXPECT_EQ(c.alignment[k].start, at) << k;
      if (c.sentence_offset >= at && c.sentence_offset < at + c.alignment[k].count)
        sounding = c.alignment[k].symbol;
      at += c.alignment[k].count;
      names.emplace_back(c.alignment[k].symbol);
    }
    EXPECT_EQ(sounding, c.phoneme) << "at sample " << c.sentence_offset;
    EXPECT_EQ(names.front(), "^");
    EXPECT_EQ(names.back(), "$");
    if (symbols[sentence].empty()) symbols[sentence] = names;
    EXPECT_EQ(names, symbols[sentence]);  // every chunk of a sentence, the same alignment
    aligned_samples[sentence] = at;
    EXPECT_EQ(c.sentence_offset, sentence_samples[sentence]);
    sentence_samples[sentence] += c.count;
  }
  EXPECT_EQ(rc, TTS_DONE);
  EXPECT_GT(chunks, 4);
  EXPECT_EQ(aligned_samples, sentence_samples);
  // "Yes." is j ɛ s between its edges, whatever else the table spells.
  const std::vector<std::string> yes = symbols[1];
  EXPECT_NE(std::find(yes.begin(), yes.end(), "ɛ"), yes.end());
  EXPECT_NE(std::find(yes.begin(), yes.end(), "s"), yes.end());

  // A caller built before the alignment fields has a smaller struct and is not written past it.
  tts_chunk old;
  std::memset(&old, 0xAB, sizeof old);
  old.struct_size = offsetof(tts_chunk, alignment);
  ASSERT_EQ(tts_synthesize_start(stream_, kText, &o), TTS_OK);
  ASSERT_EQ(tts_synthesize_next(stream_, &old), TTS_OK);
  EXPECT_GT(old.count, 0u);
  const auto* tail = reinterpret_cast<const unsigned char*>(&old.alignment);
  for (std::size_t i = 0; i < sizeof(tts_chunk) - offsetof(tts_chunk, alignment); ++i)
    ASSERT_EQ(tail[i], 0xAB) << "byte " << i << " past the old struct was written";
}

// Orca's way: a mark before every word, some together, by a break and at both ends.
const char kMarked[] =
    "<speak><mark name=\"start\"/>Hello <mark name=\"w1\"/>there. <mark name=\"w2\"/>Yes."
    "<mark name=\"by-break\"/><break time=\"20ms\"/><mark name=\"w3\"/><mark name=\"w3b\"/>"
    "Bye.<mark name=\"end\"/></speak>";

TEST_F(CApiChunks, ChunksCarryTheMarksAtTheSampleTheAlignmentGivesTheirWord) {
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.chunk_samples = 300;
  o.rate = 6.0f;
  o.ssml = 1;
  struct Seen {
    std::string text;  // "name@stream_sample\n" for each mark, as c_marks writes them
    std::vector<std::uint64_t> want;  // where the alignment puts each (sentence marks only)
    std::uint64_t start = 0, sentence_start = 0;
    int last_sentence = -1;
  };
  auto note = [](Seen& seen, const tts_chunk& c) {
    if (c.sentence_index >= 0 && c.sentence_index != seen.last_sentence) {
      seen.last_sentence = c.sentence_index;
      seen.sentence_start = seen.start;
    }
    for (std::size_t i = 0; i < c.mark_count; ++i) {
      const tts_mark& m = c.marks[i];
      EXPECT_EQ(m.stream_sample, seen.start + m.sample) << m.name;
      EXPECT_TRUE(m.sample < c.count || (m.sample == c.count && c.is_last)) << m.name;
      seen.text += std::string(m.name) + "@" + std::to_string(m.stream_sample) + "\n";
      // A mark before a word is at the start of the span after a word boundary (or BOS).
      if (c.sentence_index >= 0 && std::string(m.name) != "by-break" &&
          std::string(m.name) != "end") {
        ASSERT_NE(c.alignment, nullptr);
        std::optional<std::uint64_t> at;
        for (std::size_t k = 1; k + 1 < c.alignment_count && !at; ++k) {
          const std::string before = c.alignment[k - 1].symbol;
          if ((before == " " || before == "^") &&
              seen.sentence_start + c.alignment[k].start == m.stream_sample)
            at = m.stream_sample;
        }
        EXPECT_TRUE(at) << m.name << " is at no word's first phone";
      }
    }
    EXPECT_EQ(c.marks == nullptr, c.mark_count == 0);
    seen.start += c.count;
  };
  Seen pulled;
  ASSERT_EQ(tts_synthesize_start(stream_, kMarked, &o), TTS_OK);
  tts_chunk c;
  tts_chunk_init(&c);
  int rc;
  while ((rc = tts_synthesize_next(stream_, &c)) == TTS_OK) note(pulled, c);
  ASSERT_EQ(rc, TTS_DONE) << tts_stream_last_error(stream_);
  EXPECT_EQ(pulled.text.substr(0, pulled.text.find('@')), "start");
  EXPECT_NE(pulled.text.find("\nend@" + std::to_string(pulled.start) + "\n"), std::string::npos)
      << pulled.text;  // at the very end
  int lines = 0;
  for (char ch : pulled.text) lines += ch == '\n';
  EXPECT_EQ(lines, 7);

  // The callback form reports the same marks at the same samples; so does C.
  Seen called;
  auto on_chunk = [](const tts_chunk* chunk, void* user) -> int {
    auto* p = static_cast<std::pair<Seen*, decltype(note)*>*>(user);
    (*p->second)(*p->first, *chunk);
    return 0;
  };
  std::pair<Seen*, decltype(note)*> both{&called, &note};
  ASSERT_EQ(tts_synthesize(stream_, kMarked, &o, on_chunk, &both), TTS_OK);
  EXPECT_EQ(called.text, pulled.text);
  std::vector<char> text(4096);
  EXPECT_EQ(c_marks(voice_path().c_str(), kMarked, text.data(), text.size()), 7);
  EXPECT_EQ(std::string(text.data()), pulled.text);

  // A caller built before the mark fields is not written past its struct.
  tts_chunk old;
  std::memset(&old, 0xAB, sizeof old);
  old.struct_size = offsetof(tts_chunk, marks);
  ASSERT_EQ(tts_synthesize_start(stream_, kMarked, &o), TTS_OK);
  ASSERT_EQ(tts_synthesize_next(stream_, &old), TTS_OK);
  EXPECT_GT(old.alignment_count, 0u);
  const auto* tail = reinterpret_cast<const unsigned char*>(&old.marks);
  for (std::size_t i = 0; i < sizeof(tts_chunk) - offsetof(tts_chunk, marks); ++i)
    ASSERT_EQ(tail[i], 0xAB) << "byte " << i << " past the old struct was written";
}

TEST_F(CApiChunks, MarksAreBadInputWithoutANameAndAbsentFromPlainText) {
  tts_synthesis_options o;
  tts_default_synthesis_options(&o);
  o.rate = 6.0f;
  o.ssml = 1;
  ASSERT_EQ(tts_synthesize_start(stream_, "<speak>a <mark/> b</speak>", &o), TTS_OK);
  tts_chunk c;
  tts_chunk_init(&c);
  EXPECT_EQ(tts_synthesize_next(stream_, &c), TTS_ERR_BAD_INPUT);
  EXPECT_NE(std::string(tts_stream_last_error(stream_)).find("<mark> needs a non-empty name"),
            std::string::npos)
      << tts_stream_last_error(stream_);
  o.ssml = 0;
  ASSERT_EQ(tts_synthesize_start(stream_, "a <mark name=\"m\"/> b", &o), TTS_OK);
  int rc;
  while ((rc = tts_synthesize_next(stream_, &c)) == TTS_OK) EXPECT_EQ(c.mark_count, 0u);
  EXPECT_EQ(rc, TTS_DONE);
}

}  // namespace
