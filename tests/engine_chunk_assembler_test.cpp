// The chunk assembler (tts/engine/chunk_assembler.h) on hand-made streams: exact chunk boundaries,
// the sentence, offset and phoneme of every chunk, where every mark lands, which chunk is the last
// and when each goes out; and that however a sentence's samples are split into add() calls, the
// chunks concatenate to the same audio with the same marks.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tts/engine/chunk_assembler.h"

using namespace tts::engine;

namespace {

constexpr int kRate = 16000;

// A sentence whose symbols sound until `ends` (samples of the sentence), with its marks.
struct Spoken {
  std::shared_ptr<SentenceInfo> info;
  std::vector<std::size_t> ends;
  std::size_t samples = 0;
};

Spoken sentence(int index, std::size_t samples,
                std::vector<std::pair<std::string, std::size_t>> spans,
                std::vector<std::pair<std::string, std::size_t>> marks = {}) {
  Spoken s;
  s.info = std::make_shared<SentenceInfo>();
  s.info->index = index;
  s.samples = samples;
  std::size_t start = 0;
  for (auto& [symbol, end] : spans) {
    s.info->alignment.push_back({symbol, start, end - start});
    s.ends.push_back(end);
    start = end;
  }
  for (auto& [name, sample] : marks) s.info->marks.push_back({name, 0, sample});
  return s;
}

// Sample i of sentence `index`: distinct values, so that any misplaced sample shows.
std::vector<float> audio_of(int index, std::size_t from, std::size_t to) {
  std::vector<float> out;
  for (std::size_t i = from; i < to; ++i) out.push_back(static_cast<float>(index * 1000 + i + 1));
  return out;
}

// Collects what an assembler delivers and counts its first_made calls.
struct Collector {
  std::vector<AudioChunk> chunks;
  int first_made = 0;
  ChunkAssembler make(std::size_t chunk, std::size_t first, std::size_t silence) {
    return ChunkAssembler(
        {kRate, chunk, first, silence}, [this](AudioChunk c) { chunks.push_back(std::move(c)); },
        [this] { ++first_made; });
  }
  std::vector<std::size_t> sizes() const {
    std::vector<std::size_t> out;
    for (const auto& c : chunks) out.push_back(c.samples.size());
    return out;
  }
  std::vector<std::size_t> offsets() const {
    std::vector<std::size_t> out;
    for (const auto& c : chunks) out.push_back(c.sentence_offset);
    return out;
  }
  std::vector<std::string> phonemes() const {
    std::vector<std::string> out;
    for (const auto& c : chunks) out.push_back(c.phoneme);
    return out;
  }
  std::vector<float> audio() const {
    std::vector<float> out;
    for (const auto& c : chunks) out.insert(out.end(), c.samples.begin(), c.samples.end());
    return out;
  }
  // (name, stream sample, chunk index, sample in chunk) of every mark, in delivery order.
  struct Placed {
    std::string name;
    std::uint64_t stream_sample;
    std::size_t chunk, sample;
    bool operator==(const Placed& o) const {
      return name == o.name && stream_sample == o.stream_sample && chunk == o.chunk &&
             sample == o.sample;
    }
  };
  std::vector<Placed> marks() const {
    std::vector<Placed> out;
    for (std::size_t i = 0; i < chunks.size(); ++i)
      for (const auto& m : chunks[i].marks) out.push_back({m.name, m.stream_sample, i, m.sample});
    return out;
  }
};

std::ostream& operator<<(std::ostream& os, const Collector::Placed& p) {
  return os << p.name << "@" << p.stream_sample << " (chunk " << p.chunk << " +" << p.sample << ")";
}

// Feeds a whole sentence in blocks of what the assembler asks for, as the pipeline does.
void speak(ChunkAssembler& a, const Spoken& s) {
  a.begin_sentence(s.info, s.ends, s.samples);
  for (std::size_t made = 0; made < s.samples;) {
    const std::size_t n = std::min(a.next_chunk_samples(), s.samples - made);
    a.add(audio_of(s.info->index, made, made + n));
    made += n;
  }
  a.end_sentence();
}

}  // namespace

TEST(ChunkAssembler, FirstChunkIsShortThenChunksOfTheSetSize) {
  Collector out;
  ChunkAssembler a = out.make(8, 3, 0);
  EXPECT_EQ(a.next_chunk_samples(), 3u);
  speak(a, sentence(0, 20, {{"a", 20}}));
  a.finish();
  EXPECT_EQ(out.sizes(), (std::vector<std::size_t>{3, 8, 8, 1}));
  EXPECT_EQ(out.offsets(), (std::vector<std::size_t>{0, 3, 11, 19}));
  EXPECT_EQ(out.audio(), audio_of(0, 0, 20));
  for (std::size_t i = 0; i < out.chunks.size(); ++i) {
    EXPECT_EQ(out.chunks[i].is_last, i + 1 == out.chunks.size());
    EXPECT_EQ(out.chunks[i].sample_rate, kRate);
    EXPECT_EQ(out.chunks[i].sentence->index, 0);
  }
  EXPECT_EQ(out.first_made, 1);
  EXPECT_EQ(a.position(), 20u);
}

TEST(ChunkAssembler, AChunkNeverSpansTwoBlocks) {
  Collector out;
  ChunkAssembler a = out.make(8, 3, 0);
  const Spoken s = sentence(0, 22, {{"a", 22}});
  a.begin_sentence(s.info, s.ends, s.samples);
  a.add(audio_of(0, 0, 5));   // 3 (the first chunk), then 2
  a.add(audio_of(0, 5, 6));   // 1
  a.add({});                  // nothing
  a.add(audio_of(0, 6, 22));  // 8, 8
  a.end_sentence();
  a.finish();
  EXPECT_EQ(out.sizes(), (std::vector<std::size_t>{3, 2, 1, 8, 8}));
  EXPECT_EQ(out.offsets(), (std::vector<std::size_t>{0, 3, 5, 6, 14}));
  EXPECT_EQ(out.audio(), audio_of(0, 0, 22));
}

TEST(ChunkAssembler, PhonemeIsTheSymbolSoundingAtTheChunksFirstSample) {
  Collector out;
  ChunkAssembler a = out.make(5, 2, 0);
  // "a" lasts no sample; the audio runs 2 samples past the last symbol's end.
  speak(a, sentence(0, 14, {{"^", 2}, {"a", 2}, {"b", 7}, {"$", 12}}));
  a.finish();
  EXPECT_EQ(out.sizes(), (std::vector<std::size_t>{2, 5, 5, 2}));
  EXPECT_EQ(out.phonemes(), (std::vector<std::string>{"^", "b", "$", ""}));
}

TEST(ChunkAssembler, EachChunkGoesOutOnceTheNextShowsItIsNotTheLast) {
  Collector out;
  ChunkAssembler a = out.make(4, 4, 2);
  const Spoken s = sentence(0, 10, {{"a", 10}});
  a.begin_sentence(s.info, s.ends, s.samples);
  a.add(audio_of(0, 0, 4));
  EXPECT_EQ(out.chunks.size(), 1u) << "more of the sentence follows: out at once";
  EXPECT_EQ(out.first_made, 1);
  a.add(audio_of(0, 4, 10));
  EXPECT_EQ(out.chunks.size(), 2u) << "the sentence's last chunk waits";
  a.end_sentence();
  EXPECT_EQ(out.chunks.size(), 2u);
  a.finish();
  ASSERT_EQ(out.sizes(), (std::vector<std::size_t>{4, 4, 2}));
  EXPECT_TRUE(out.chunks.back().is_last);
  EXPECT_FALSE(out.chunks[1].is_last);
}

TEST(ChunkAssembler, SilenceBetweenSentencesBelongsToTheSentenceBefore) {
  Collector out;
  ChunkAssembler a = out.make(8, 8, 11);
  const Spoken first = sentence(0, 10, {{"a", 10}}), second = sentence(1, 6, {{"b", 6}});
  speak(a, first);
  speak(a, second);
  a.finish();
  EXPECT_EQ(out.sizes(), (std::vector<std::size_t>{8, 2, 8, 3, 6}));
  EXPECT_EQ(out.offsets(), (std::vector<std::size_t>{0, 8, 10, 18, 0}));
  EXPECT_EQ(out.phonemes(), (std::vector<std::string>{"a", "a", "", "", "b"}));
  for (int i : {0, 1, 2, 3}) EXPECT_EQ(out.chunks[i].sentence, first.info);
  EXPECT_EQ(out.chunks[4].sentence, second.info);
  std::vector<float> expected = audio_of(0, 0, 10);
  expected.resize(21, 0.0f);
  for (float x : audio_of(1, 0, 6)) expected.push_back(x);
  EXPECT_EQ(out.audio(), expected) << "no silence after the last sentence";
  EXPECT_TRUE(out.chunks.back().is_last);
}

TEST(ChunkAssembler, APauseStandsInForTheSentenceSilence) {
  Collector out;
  ChunkAssembler a = out.make(8, 3, 4);
  // A pause first is in chunks of the set size, and counts as the stream's first chunk.
  a.pause(10);
  EXPECT_EQ(out.first_made, 1);
  speak(a, sentence(0, 5, {{"a", 5}}));
  a.pause(3);
  speak(a, sentence(1, 2, {{"b", 2}}));
  a.finish();
  EXPECT_EQ(out.sizes(), (std::vector<std::size_t>{8, 2, 5, 3, 2}));
  EXPECT_EQ(out.offsets(), (std::vector<std::size_t>{0, 8, 0, 0, 0}));
  for (int i : {0, 1, 3}) {
    ASSERT_NE(out.chunks[i].sentence, nullptr);
    EXPECT_EQ(out.chunks[i].sentence->index, -1);
    EXPECT_TRUE(out.chunks[i].sentence->alignment.empty());
    EXPECT_EQ(out.chunks[i].phoneme, "");
  }
  EXPECT_EQ(out.chunks[0].sentence, out.chunks[1].sentence) << "one pause, one SentenceInfo";
  EXPECT_NE(out.chunks[0].sentence, out.chunks[3].sentence);
  EXPECT_EQ(out.chunks[2].sentence->index, 0);
  EXPECT_EQ(out.chunks[4].sentence->index, 1);
  EXPECT_EQ(a.position(), 20u);
}

TEST(ChunkAssembler, MarksAtTheFirstSampleMidChunkBetweenSentencesAndAtTheEnd) {
  Collector out;
  ChunkAssembler a = out.make(4, 2, 3);
  a.mark("before-all");  // due at stream sample 0
  speak(a, sentence(0, 6, {{"a", 3}, {"b", 6}}, {{"zero", 0}, {"b", 3}, {"end-0", 6}}));
  a.mark("between");  // where the stream has got to: the end of sentence 0, before its silence
  speak(a, sentence(1, 5, {{"c", 5}}, {{"one-zero", 0}, {"end-1", 5}}));
  a.mark("after-all");
  a.finish();
  // Sentence 0: [0,2) [2,6); silence [6,9); sentence 1: [9,13) [13,14).
  EXPECT_EQ(out.sizes(), (std::vector<std::size_t>{2, 4, 3, 4, 1}));
  const std::vector<Collector::Placed> expected = {
      {"before-all", 0, 0, 0}, {"zero", 0, 0, 0},     {"b", 3, 1, 1},      {"end-0", 6, 2, 0},
      {"between", 6, 2, 0},    {"one-zero", 9, 3, 0}, {"end-1", 14, 4, 1}, {"after-all", 14, 4, 1}};
  EXPECT_EQ(out.marks(), expected) << "marks at the very end come with the last chunk, at its end";
  EXPECT_TRUE(out.chunks.back().is_last);
}

TEST(ChunkAssembler, MarksWithoutAudioComeInOneEmptyLastChunk) {
  Collector out;
  ChunkAssembler a = out.make(8, 3, 5);
  a.mark("x");
  a.mark("y");
  a.finish();
  ASSERT_EQ(out.chunks.size(), 1u);
  const AudioChunk& c = out.chunks[0];
  EXPECT_TRUE(c.samples.empty());
  EXPECT_TRUE(c.is_last);
  EXPECT_EQ(c.sample_rate, kRate);
  EXPECT_EQ(c.sentence, nullptr);
  EXPECT_EQ(out.marks(), (std::vector<Collector::Placed>{{"x", 0, 0, 0}, {"y", 0, 0, 0}}));
  EXPECT_EQ(out.first_made, 0);
}

TEST(ChunkAssembler, NothingInNothingOut) {
  Collector out;
  ChunkAssembler a = out.make(8, 3, 5);
  a.finish();
  EXPECT_TRUE(out.chunks.empty());
  EXPECT_FALSE(a.take_held());
}

TEST(ChunkAssembler, AnEmptySentenceHasNoChunksButItsSilenceAndMarks) {
  Collector out;
  ChunkAssembler a = out.make(8, 3, 4);
  const Spoken empty = sentence(0, 0, {}, {{"in-empty", 0}});
  speak(a, empty);
  EXPECT_TRUE(out.chunks.empty());
  speak(a, sentence(1, 3, {{"a", 3}}));
  const Spoken empty_last = sentence(2, 0, {}, {{"in-empty-last", 0}});
  speak(a, empty_last);
  a.finish();
  // The silence after the empty sentence is its own (at its offset 0); sentence 1's silence comes
  // before the empty last sentence, whose mark is due at the end.
  EXPECT_EQ(out.sizes(), (std::vector<std::size_t>{4, 3, 4}));
  EXPECT_EQ(out.chunks[0].sentence, empty.info);
  EXPECT_EQ(out.chunks[0].sentence_offset, 0u);
  EXPECT_EQ(out.chunks[2].sentence->index, 1);
  EXPECT_EQ(out.chunks[2].sentence_offset, 3u);
  EXPECT_EQ(out.marks(),
            (std::vector<Collector::Placed>{{"in-empty", 0, 0, 0}, {"in-empty-last", 11, 2, 4}}));
  EXPECT_TRUE(out.chunks.back().is_last);
}

TEST(ChunkAssembler, TakeHeldGivesTheChunkHeldBackAsItIs) {
  Collector out;
  ChunkAssembler a = out.make(8, 8, 4);
  a.mark("late");
  speak(a, sentence(0, 5, {{"a", 5}}, {{"end", 5}}));
  EXPECT_TRUE(out.chunks.empty());
  std::optional<AudioChunk> held = a.take_held();
  ASSERT_TRUE(held);
  EXPECT_EQ(held->samples, audio_of(0, 0, 5));
  EXPECT_FALSE(held->is_last);
  ASSERT_EQ(held->marks.size(), 1u) << "a mark due at the end is not in it";
  EXPECT_EQ(held->marks[0].name, "late");
  EXPECT_FALSE(a.take_held());
}

// Every way of splitting each sentence's samples into three add() calls (empty ones included;
// every split of the first sentence, every other of the second) gives the same audio, the same
// marks at the same stream samples, and the same sentence, offset and phoneme for every sample;
// only where chunks end may differ.
TEST(ChunkAssembler, EverySplitGivesTheSameAudioAndMarks) {
  const Spoken a = sentence(0, 13, {{"^", 4}, {"x", 4}, {"y", 9}, {"$", 13}},
                            {{"start", 0}, {"y", 4}, {"end", 13}});
  const Spoken b = sentence(1, 11, {{"^", 6}, {"z", 11}}, {{"mid", 6}, {"end", 11}});
  struct Sample {
    float value;
    int sentence;  // its index (a pause's SentenceInfo is made afresh in each run)
    std::size_t offset;
    bool operator==(const Sample& o) const {
      return value == o.value && sentence == o.sentence && offset == o.offset;
    }
  };
  auto run = [&](std::size_t p1, std::size_t q1, std::size_t p2, std::size_t q2) {
    Collector out;
    ChunkAssembler assembler = out.make(4, 3, 5);
    auto feed = [&](const Spoken& s, std::size_t p, std::size_t q) {
      assembler.begin_sentence(s.info, s.ends, s.samples);
      assembler.add(audio_of(s.info->index, 0, p));
      assembler.add(audio_of(s.info->index, p, q));
      assembler.add(audio_of(s.info->index, q, s.samples));
      assembler.end_sentence();
    };
    assembler.mark("first");
    feed(a, p1, q1);
    assembler.mark("between");
    feed(b, p2, q2);  // after 5 samples of silence
    assembler.pause(6);
    assembler.finish();
    return out;
  };
  // Each sample with its chunk's sentence and its offset in that sentence.
  auto samples_of = [](const Collector& out) {
    std::vector<Sample> all;
    for (const auto& c : out.chunks)
      for (std::size_t i = 0; i < c.samples.size(); ++i)
        all.push_back({c.samples[i], c.sentence->index, c.sentence_offset + i});
    return all;
  };
  auto names_at = [](const Collector& out) {
    std::vector<std::pair<std::string, std::uint64_t>> all;
    for (const auto& m : out.marks()) all.emplace_back(m.name, m.stream_sample);
    return all;
  };
  const Collector reference = run(0, 0, 0, 0);
  std::vector<float> expected = audio_of(0, 0, 13);
  expected.resize(13 + 5, 0.0f);
  for (float x : audio_of(1, 0, 11)) expected.push_back(x);
  expected.resize(13 + 5 + 11 + 6, 0.0f);
  ASSERT_EQ(reference.audio(), expected);
  const std::vector<std::pair<std::string, std::uint64_t>> marks = {
      {"first", 0}, {"start", 0}, {"y", 4}, {"end", 13}, {"between", 13}, {"mid", 24}, {"end", 29}};
  ASSERT_EQ(names_at(reference), marks);
  int runs = 0;
  for (std::size_t p1 = 0; p1 <= a.samples; ++p1)
    for (std::size_t q1 = p1; q1 <= a.samples; ++q1)
      for (std::size_t p2 = 0; p2 <= b.samples; p2 += 2)
        for (std::size_t q2 = p2; q2 <= b.samples; q2 += 3) {
          const Collector out = run(p1, q1, p2, q2);
          ++runs;
          ASSERT_EQ(out.audio(), reference.audio()) << p1 << " " << q1 << " " << p2 << " " << q2;
          ASSERT_EQ(names_at(out), names_at(reference))
              << p1 << " " << q1 << " " << p2 << " " << q2;
          ASSERT_TRUE(samples_of(out) == samples_of(reference));
          for (std::size_t i = 0; i < out.chunks.size(); ++i) {
            ASSERT_EQ(out.chunks[i].is_last, i + 1 == out.chunks.size());
            ASSERT_LE(out.chunks[i].samples.size(), i == 0 ? 3u : 4u);
            const AudioChunk& c = out.chunks[i];
            if (c.sentence->index < 0) continue;
            const Spoken& s = c.sentence->index == 0 ? a : b;
            std::string sounding;
            for (std::size_t k = 0; k < s.ends.size() && sounding.empty(); ++k)
              if (s.ends[k] > c.sentence_offset) sounding = s.info->alignment[k].symbol;
            ASSERT_EQ(c.phoneme, sounding) << "chunk " << i;
          }
        }
  EXPECT_GT(runs, 1000);
}
