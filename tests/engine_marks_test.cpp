// SSML <mark>s through the streaming pipeline on a tiny random voice: every mark once, in order, in
// the chunk holding the sample where the alignment says its word starts.
#include <gtest/gtest.h>

#include <map>

#include "random_voice_suite.h"
#include "tts/engine/pipeline.h"

using namespace tts::engine;

namespace {

// Orca's way: a mark before every word, and some at the edges, between sentences and by breaks.
const char kMarked[] =
    "<speak><mark name=\"start\"/><mark name=\"w0\"/>Hello <mark name=\"w1\"/>there. "
    "<mark name=\"w2\"/>Yes!<mark name=\"after-yes\"/><break time=\"50ms\"/>"
    "<mark name=\"w3\"/>And <mark name=\"w4\"/><mark name=\"w4-again\"/>a "
    "<prosody rate=\"fast\"><mark name=\"w5\"/>third?</prosody><mark name=\"end\"/></speak>";
const std::vector<std::string> kNames = {"start", "w0", "w1",       "w2", "after-yes",
                                         "w3",    "w4", "w4-again", "w5", "end"};

std::string without_marks(std::string markup) {
  for (std::size_t at; (at = markup.find("<mark ")) != std::string::npos;)
    markup.erase(at, markup.find("/>", at) + 2 - at);
  return markup;
}

SynthesisOptions ssml(std::size_t chunk_samples) {
  SynthesisOptions o;
  o.rate = 6.0f;
  o.ssml = true;
  o.seed = 3;
  o.chunk_samples = chunk_samples;
  return o;
}

class Marks : public tts::testing_support::RandomVoiceSuite<Marks> {
 protected:
  static std::vector<AudioChunk> all_chunks(const std::string& text, const SynthesisOptions& o) {
    SynthesisStream stream(voice());
    stream.start(text, o);
    std::vector<AudioChunk> chunks;
    AudioChunk c;
    while (stream.next(c)) chunks.push_back(c);
    return chunks;
  }
};

struct Fired {
  std::string name;
  std::uint64_t at;  // stream sample
  bool operator==(const Fired& o) const { return name == o.name && at == o.at; }
};

// Checks each chunk's marks against the chunk and returns them all, in stream order.
std::vector<Fired> fired(const std::vector<AudioChunk>& chunks) {
  std::vector<Fired> out;
  std::uint64_t start = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const auto& c = chunks[i];
    for (const auto& m : c.marks) {
      EXPECT_EQ(m.stream_sample, start + m.sample) << m.name;
      if (c.is_last) {
        EXPECT_LE(m.sample, c.samples.size()) << m.name;
      } else {
        EXPECT_LT(m.sample, c.samples.size()) << m.name;
      }
      if (!out.empty()) {
        EXPECT_GE(m.stream_sample, out.back().at) << m.name;
      }
      out.push_back({m.name, m.stream_sample});
    }
    start += c.samples.size();
  }
  return out;
}

}  // namespace

TEST_F(Marks, EveryMarkOnceInOrderWhereTheAlignmentPutsItsWord) {
  const auto chunks = all_chunks(kMarked, ssml(300));
  const auto marks = fired(chunks);
  std::vector<std::string> names;
  for (const auto& m : marks) names.push_back(m.name);
  EXPECT_EQ(names, kNames);

  // Where each sentence starts in the stream, and its marks there by the alignment.
  std::map<std::string, std::uint64_t> want;
  std::uint64_t start = 0, total = 0;
  std::shared_ptr<const SentenceInfo> seen;
  for (const auto& c : chunks) {
    if (c.sentence && c.sentence->index >= 0 && c.sentence != seen) {
      seen = c.sentence;
      ASSERT_EQ(c.sentence_offset, 0u);
      const auto& spans = c.sentence->alignment;
      std::size_t length = 0;
      for (const auto& s : spans) length += s.count;
      for (const auto& m : c.sentence->marks) {
        if (m.symbol < spans.size()) {
          EXPECT_EQ(m.sample, spans[m.symbol].start) << m.name;
          // Before the first phone of a word: the symbol before it is BOS or a word boundary.
          ASSERT_GE(m.symbol, 1u);
          const std::string& before = spans[m.symbol - 1].symbol;
          EXPECT_TRUE(before == "^" || before == " ") << m.name << " after " << before;
          EXPECT_NE(spans[m.symbol].symbol, "$") << m.name;
        } else {
          EXPECT_EQ(m.symbol, spans.size()) << m.name;
          EXPECT_EQ(m.sample, length) << m.name;
        }
        want[m.name] = start + m.sample;
      }
    }
    start += c.samples.size();
  }
  total = start;
  // The sentences' own marks are where the stream reports them.
  EXPECT_EQ(want.size(), kNames.size());  // every mark here is in a sentence
  for (const auto& m : marks)
    if (want.count(m.name)) {
      EXPECT_EQ(m.at, want[m.name]) << m.name;
    }
  EXPECT_EQ(marks[0].at, marks[1].at);  // "start" and "w0": the first phone of "Hello"
  EXPECT_GT(marks[0].at, 0u);           // (after BOS)
  EXPECT_EQ(marks[6].at, marks[7].at);  // "w4" and "w4-again"
  EXPECT_EQ(marks.back().at, total);    // "end": after the last sample, in the last chunk
  EXPECT_EQ(chunks.back().marks.back().sample, chunks.back().samples.size());
}

TEST_F(Marks, MarksChangeNeitherTheAudioNorDependOnTheChunkSize) {
  const auto small = all_chunks(kMarked, ssml(97));
  const auto large = all_chunks(kMarked, ssml(5000));
  const auto plain = all_chunks(without_marks(kMarked), ssml(5000));
  auto samples = [](const std::vector<AudioChunk>& chunks) {
    std::vector<float> out;
    for (const auto& c : chunks) out.insert(out.end(), c.samples.begin(), c.samples.end());
    return out;
  };
  EXPECT_EQ(samples(small), samples(plain));
  EXPECT_EQ(samples(large), samples(plain));
  EXPECT_EQ(fired(small), fired(large));
  for (const auto& c : plain) EXPECT_TRUE(c.marks.empty());
}

TEST_F(Marks, MarksBesideBreaksAndSentenceSilence) {
  SynthesisOptions o = ssml(256);
  o.sentence_silence = 0.1f;
  const auto chunks = all_chunks(
      "<speak><mark name=\"a\"/><break time=\"100ms\"/><mark name=\"b\"/>Hi.<mark name=\"c\"/>"
      "</speak>",
      o);
  const auto marks = fired(chunks);
  ASSERT_EQ(marks.size(), 3u);
  EXPECT_EQ(marks[0], (Fired{"a", 0}));  // the start of the pause
  auto first_phone = [](const std::vector<AudioChunk>& cs, int sentence) -> std::size_t {
    for (const auto& c : cs)
      if (c.sentence && c.sentence->index == sentence) return c.sentence->alignment.at(1).start;
    return 0;
  };
  EXPECT_EQ(marks[1].at, 1600u + first_phone(chunks, 0));  // after 100 ms at 16 kHz: "Hi"
  std::uint64_t total = 0;
  for (const auto& c : chunks) total += c.samples.size();
  EXPECT_EQ(marks[2], (Fired{"c", total}));  // the end

  // Between sentences a mark after a sentence's last word is at its end, before the silence; one
  // before the next sentence's first word after the silence.
  const auto two =
      all_chunks("<speak><s>One.<mark name=\"x\"/></s><s><mark name=\"y\"/>Two.</s></speak>", o);
  const auto between = fired(two);
  ASSERT_EQ(between.size(), 2u);
  EXPECT_EQ(between[0].name, "x");
  EXPECT_EQ(between[1].at - between[0].at, 1600u + first_phone(two, 1));  // 0.1 s of silence
}

TEST_F(Marks, MarksWithNothingToSayComeInOneEmptyLastChunk) {
  const auto chunks = all_chunks("<speak><mark name=\"a\"/><mark name=\"b\"/></speak>", ssml(256));
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_TRUE(chunks[0].is_last);
  EXPECT_TRUE(chunks[0].samples.empty());
  EXPECT_EQ(fired(chunks), (std::vector<Fired>{{"a", 0}, {"b", 0}}));
  // Plain text has no marks: the markup is read as text.
  SynthesisOptions o = ssml(256);
  o.ssml = false;
  for (const auto& c : all_chunks("a <mark name=\"a\"/> b", o)) EXPECT_TRUE(c.marks.empty());
}
