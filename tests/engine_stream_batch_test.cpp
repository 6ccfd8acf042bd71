// The serving batch (tts/engine/stream_batch.h) on the CPU sampler: each stream's classes are
// exactly those of a sampler of its own, with members joining and leaving mid-way; every waiting
// member is served each step; a member that leaves frees its slot without touching the others; no
// more members than slots; the pipeline's audio through a batch is its audio without one, bit for
// bit; the many-stream CPU sampler behind it; the real-time capacity measurement.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "random_voice_suite.h"
#include "tiny_wavenet.h"
#include "tts/acoustic/acoustic_model.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/stream_batch.h"
#include "tts/vocoder/multi_stream_sampler.h"
#include "tts/vocoder/sampler.h"
#include "tts/vocoder/sampler_source.h"

using namespace tts;
using engine::StreamBatch;

namespace {

struct Model {
  vocoder::WaveNetConfig config = tts::testing::tiny_config();
  vocoder::WaveNetWeights weights{config};
  Model() { weights.initialise(11); }
  kernels::Matrix mel(int frames, int salt) const {
    std::srand(static_cast<unsigned>(salt));
    return kernels::Matrix::Random(config.mel_channels, frames);
  }
  // The classes a one-stream sampler of its own makes of `mel` with `seed`.
  std::vector<int32_t> alone(const kernels::Matrix& mel, uint64_t seed) const {
    vocoder::WaveNetSampler sampler(weights);
    sampler.start(0, mel, seed);
    std::vector<int32_t> out(sampler.total_samples(0));
    EXPECT_EQ(sampler.generate(out.data(), out.size()), out.size());
    return out;
  }
};

// Up to `max` more samples of a one-stream sampler.
std::size_t generate_one(vocoder::Sampler& sampler, int32_t* out, std::size_t max) {
  return sampler.generate({max}, max, out).at(0);
}

// All of a member's utterance, asked for in blocks of `block` samples.
std::vector<int32_t> run_member(vocoder::Sampler& member, const kernels::Matrix& mel, uint64_t seed,
                                std::size_t block) {
  member.start(0, mel, seed);
  std::vector<int32_t> out, part(block);
  while (std::size_t n = generate_one(member, part.data(), block))
    out.insert(out.end(), part.begin(), part.begin() + static_cast<std::ptrdiff_t>(n));
  return out;
}

std::unique_ptr<StreamBatch> cpu_batch(const Model& m, int slots, std::size_t step, int threads) {
  return std::make_unique<StreamBatch>(
      m.weights,
      std::make_unique<vocoder::MultiStreamSampler>(m.weights, slots,
                                                    vocoder::SamplerOptions{0, 1.0f, threads}),
      step);
}

// A many-stream sampler that records the counts each step asks of it and, until released, holds
// its first step: a test can then have several members waiting before the batch serves any.
class RecordingSampler final : public vocoder::Sampler {
 public:
  RecordingSampler(std::unique_ptr<vocoder::Sampler> inner) : inner_(std::move(inner)) {}
  int streams() const override { return inner_->streams(); }
  void start(int s, const kernels::Matrix& mel, uint64_t seed) override {
    inner_->start(s, mel, seed);
  }
  std::vector<std::size_t> generate(const std::vector<std::size_t>& want, std::size_t stride,
                                    int32_t* out) override {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      steps_.push_back(want);
      changed_.notify_all();
      changed_.wait(lock, [&] { return released_; });
    }
    return inner_->generate(want, stride, out);
  }
  std::size_t total_samples(int s) const override { return inner_->total_samples(s); }
  std::size_t remaining(int s) const override { return inner_->remaining(s); }

  void wait_for_first_step() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !steps_.empty(); });
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }
  std::vector<std::vector<std::size_t>> steps() {
    std::lock_guard<std::mutex> lock(mutex_);
    return steps_;
  }

 private:
  std::unique_ptr<vocoder::Sampler> inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool released_ = false;
  std::vector<std::vector<std::size_t>> steps_;
};

}  // namespace

TEST(MultiStreamSampler, EachStreamIsExactlyASamplerOfItsOwn) {
  Model m;
  const std::vector<kernels::Matrix> mels = {m.mel(30, 1), m.mel(9, 2), m.mel(21, 3)};
  vocoder::MultiStreamSampler sampler(m.weights, 3, {0, 1.0f, 2});
  for (int s = 0; s < 3; ++s) sampler.start(s, mels[s], 100 + s);
  const std::size_t stride = 13;
  std::vector<std::vector<int32_t>> got(3);
  std::vector<int32_t> out(3 * stride);
  for (int round = 0; sampler.remaining(0) + sampler.remaining(1) + sampler.remaining(2) > 0;
       ++round) {
    // Uneven counts, one stream left out now and then.
    const std::vector<std::size_t> want = {round % 3 == 0 ? 0u : 13u, 5u, round % 2 ? 7u : 1u};
    const auto made = sampler.generate(want, stride, out.data());
    for (int s = 0; s < 3; ++s) {
      EXPECT_LE(made[s], want[s]);
      got[s].insert(got[s].end(), out.begin() + s * stride, out.begin() + s * stride + made[s]);
    }
  }
  for (int s = 0; s < 3; ++s) EXPECT_EQ(got[s], m.alone(mels[s], 100 + s)) << "stream " << s;
  EXPECT_THROW(sampler.generate({1, 2}, 4, out.data()), std::invalid_argument);
  EXPECT_THROW(sampler.start(3, mels[0], 1), std::out_of_range);
  EXPECT_THROW(sampler.generate({4}, 4, out.data()), std::invalid_argument);
}

// Members join while others run, ask in blocks of different sizes, and one leaves half-way for
// another to take its slot: every finished stream has exactly the classes it has alone.
TEST(StreamBatch, EachStreamGetsItsOwnClassesWhoeverJoinsAndLeaves) {
  Model m;
  auto batch = cpu_batch(m, 3, 16, 2);
  const int kStreams = 7;
  std::vector<kernels::Matrix> mels;
  for (int s = 0; s < kStreams; ++s) mels.push_back(m.mel(40 + 17 * s, s));
  std::vector<std::vector<int32_t>> got(kStreams);
  std::atomic<int> next{0};
  auto worker = [&](int id) {
    for (int s; (s = next.fetch_add(1)) < kStreams;) {
      std::unique_ptr<vocoder::Sampler> member;
      while (!(member = batch->try_join())) std::this_thread::yield();
      if (s == 2) {  // leaves half-way, mid-utterance
        member->start(0, mels[s], 7);
        std::vector<int32_t> part(member->total_samples(0) / 2);
        generate_one(*member, part.data(), part.size());
        continue;
      }
      got[s] = run_member(*member, mels[s], 1000 + s, 5 + 37 * static_cast<std::size_t>(id));
    }
  };
  std::vector<std::thread> threads;
  for (int id = 0; id < 3; ++id) threads.emplace_back(worker, id);
  for (auto& t : threads) t.join();
  for (int s = 0; s < kStreams; ++s)
    if (s != 2) {
      EXPECT_EQ(got[s], m.alone(mels[s], 1000 + s)) << "stream " << s;
    }
  EXPECT_EQ(batch->members(), 0);
  EXPECT_EQ(batch->stats().most_members, 3);
}

// A member started on a sentence's first frames and given the rest as they come (the pipeline's
// first audio) makes the classes of a sampler of its own given them all, while another member
// samples beside it.
TEST(StreamBatch, AMemberTakesItsFramesInParts) {
  Model m;
  auto batch = cpu_batch(m, 2, 16, 2);
  const kernels::Matrix mel = m.mel(60, 3), other_mel = m.mel(50, 4);
  std::vector<int32_t> other;
  std::thread beside([&] {
    auto member = batch->try_join();
    other = run_member(*member, other_mel, 9, 23);
  });
  auto member = batch->try_join();
  ASSERT_TRUE(member->takes_frames_in_parts());
  member->start(0, mel.leftCols(12), 5);
  std::vector<int32_t> got, part(40);
  for (int from = 12; from <= 60; from += 24) {
    while (std::size_t n = generate_one(*member, part.data(), part.size()))
      got.insert(got.end(), part.begin(), part.begin() + static_cast<std::ptrdiff_t>(n));
    if (from < 60) member->extend(0, mel.middleCols(from, std::min(24, 60 - from)));
  }
  beside.join();
  EXPECT_EQ(got, m.alone(mel, 5));
  EXPECT_EQ(other, m.alone(other_mel, 9));
  EXPECT_THROW(member->extend(0, kernels::Matrix::Zero(m.config.mel_channels + 1, 2)),
               std::invalid_argument);
}

// Three members waiting at once: every step serves each of them step_samples until it is done.
TEST(StreamBatch, EveryWaitingMemberIsServedEachStep) {
  Model m;
  auto recording = std::make_unique<RecordingSampler>(
      std::make_unique<vocoder::MultiStreamSampler>(m.weights, 3, vocoder::SamplerOptions{}));
  RecordingSampler* sampler = recording.get();
  StreamBatch batch(m.weights, std::move(recording), 8);
  const kernels::Matrix mel = m.mel(33, 5);  // 128 samples: 16 steps of 8
  std::vector<std::unique_ptr<vocoder::Sampler>> members;
  for (int i = 0; i < 3; ++i) members.push_back(batch.try_join());
  std::vector<std::future<std::vector<int32_t>>> runs;
  runs.push_back(
      std::async(std::launch::async, [&] { return run_member(*members[0], mel, 1, 128); }));
  sampler->wait_for_first_step();  // member 0's first step is held; the others now ask
  for (int i = 1; i < 3; ++i)
    runs.push_back(
        std::async(std::launch::async, [&, i] { return run_member(*members[i], mel, 1, 128); }));
  while (batch.waiting() < 3) std::this_thread::yield();  // all three now wait for samples
  sampler->release();
  const std::vector<int32_t> expected = m.alone(mel, 1);
  for (auto& r : runs) EXPECT_EQ(r.get(), expected);
  const auto steps = sampler->steps();
  ASSERT_EQ(steps.size(), 17u) << "one step for member 0 alone, then 16 for all three together";
  EXPECT_EQ(steps[0], (std::vector<std::size_t>{8, 0, 0}));
  for (std::size_t k = 1; k < 16; ++k)
    EXPECT_EQ(steps[k], (std::vector<std::size_t>{8, 8, 8})) << "step " << k;
  EXPECT_EQ(steps[16], (std::vector<std::size_t>{0, 8, 8}));
}

TEST(StreamBatch, RefusesMembersBeyondItsSlotsAndReusesAFreedSlot) {
  Model m;
  auto batch = cpu_batch(m, 2, 32, 1);
  EXPECT_EQ(batch->slots(), 2);
  auto a = batch->try_join();
  auto b = batch->try_join();
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(batch->try_join());
  EXPECT_EQ(batch->members(), 2);
  a.reset();
  auto c = batch->try_join();
  ASSERT_TRUE(c);
  const kernels::Matrix mel = m.mel(12, 9);
  EXPECT_EQ(run_member(*c, mel, 3, 1000), m.alone(mel, 3));
  EXPECT_THROW(c->start(1, mel, 3), std::out_of_range);
  EXPECT_THROW(c->start(0, m.mel(1, 9), 3), std::invalid_argument);
}

TEST(StreamBatch, AMemberWaitingWhenTheBatchStopsIsTold) {
  Model m;
  auto recording = std::make_unique<RecordingSampler>(
      std::make_unique<vocoder::MultiStreamSampler>(m.weights, 1, vocoder::SamplerOptions{}));
  RecordingSampler* sampler = recording.get();
  auto batch = std::make_unique<StreamBatch>(m.weights, std::move(recording), 8);
  auto member = batch->try_join();
  const kernels::Matrix mel = m.mel(20, 4);
  member->start(0, mel, 1);
  auto waiting = std::async(std::launch::async, [&] {
    std::vector<int32_t> out(64);
    return generate_one(*member, out.data(), out.size());
  });
  sampler->wait_for_first_step();
  std::thread stopper([&] { batch.reset(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  sampler->release();
  stopper.join();
  EXPECT_THROW(waiting.get(), std::runtime_error);
  EXPECT_THROW(member->start(0, mel, 1), std::runtime_error);
}

TEST(StreamBatch, RealtimeStreamsIsMeasured) {
  Model m;
  const kernels::Matrix mel = m.mel(40, 1);
  // The tiny model makes far more than 1,000 samples a second per stream on any machine.
  const vocoder::SamplerSource samplers(m.weights);
  EXPECT_GE(engine::realtime_streams(samplers, kernels::Device::kCpu, {}, mel, 1000, 1.0, 4, 0.05),
            1);
  EXPECT_EQ(
      engine::realtime_streams(samplers, kernels::Device::kCpu, {}, mel, 1 << 30, 1e6, 4, 0.05), 0);
}

class BatchedPipeline : public tts::testing_support::RandomVoiceSuite<BatchedPipeline> {};

// Four streams of the pipeline through one batch of three, one cancelled while the others speak
// and a fourth joining in its place: each finished one is its audio without a batch, bit for bit.
TEST_F(BatchedPipeline, AudioIsTheStreamsOwnAndACancelledOneTouchesNoOther) {
  const std::vector<std::string> texts = {"Hello there. Yes!", "A second voice, speaking.",
                                          "Third one here.", "And the fourth joins late."};
  const auto& weights = *voice()->vocoder().weights;
  auto batch = std::make_shared<StreamBatch>(
      weights,
      voice()->samplers().make_multi_stream_sampler(kernels::Device::kCpu, 3, {0, 1.0f, 2}), 128);
  auto options = [&](int i, bool batched) {
    engine::SynthesisOptions o;
    o.rate = 6.0f;
    o.seed = 40 + static_cast<uint64_t>(i);
    o.chunk_samples = 700;
    if (batched) o.batch = batch;
    return o;
  };
  std::vector<std::vector<float>> expected;
  for (int i = 0; i < 4; ++i)
    expected.push_back(engine::synthesize_all(voice(), texts[i], options(i, false)));

  std::vector<std::vector<float>> got(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&, i] {
      if (i == 2) {  // cancelled after its first chunk, while the others run
        engine::SynthesisStream stream(voice());
        stream.start(texts[i], options(i, true));
        engine::AudioChunk c;
        EXPECT_TRUE(stream.next(c));
        stream.cancel();
        EXPECT_THROW(while (stream.next(c)){}, engine::SynthesisCancelled);
      } else {
        got[i] = engine::synthesize_all(voice(), texts[i], options(i, true));
      }
    });
  threads[2].join();
  // The cancelled stream's slot is free once its stream is gone: a fourth joins mid-way.
  while (batch->members() > 2) std::this_thread::yield();
  got[3] = engine::synthesize_all(voice(), texts[3], options(3, true));
  threads[0].join();
  threads[1].join();
  for (int i : {0, 1, 3}) {
    ASSERT_EQ(got[i].size(), expected[i].size()) << "stream " << i;
    EXPECT_TRUE(got[i] == expected[i]) << "stream " << i << " differs from its audio alone";
  }
  EXPECT_GE(batch->stats().most_members, 2);
}

// A batch whose sampler starts only on whole sentences (as the GPU's): the pipeline gathers a
// sentence's frames, which the acoustic model hands over in two parts, before it starts the
// stream, and the audio is the stream's own.
TEST_F(BatchedPipeline, ASamplerOfWholeSentencesGetsTheFramesGathered) {
  const std::string text = "The quick brown fox jumps over the lazy dog, then runs away.";
  const auto& weights = *voice()->vocoder().weights;
  auto recording = std::make_unique<RecordingSampler>(
      voice()->samplers().make_multi_stream_sampler(kernels::Device::kCpu, 1));
  recording->release();
  auto batch = std::make_shared<StreamBatch>(weights, std::move(recording), 128);
  engine::SynthesisOptions o;
  o.seed = 5;
  o.chunk_samples = 700;
  const std::vector<int32_t> ids = [&] {
    std::vector<int32_t> all;
    voice()->text().process(
        text, [&](frontend::PhonemizedSentence s) { all.assign(s.ids.begin(), s.ids.end()); });
    return all;
  }();
  int parts = 0;
  voice()->acoustic().synthesize_in_parts(ids, {},
                                          [&](acoustic::AcousticOutput, bool) { ++parts; });
  ASSERT_EQ(parts, 2) << "the sentence should come in two parts";
  const std::vector<float> alone = engine::synthesize_all(voice(), text, o);
  o.batch = batch;
  EXPECT_TRUE(engine::synthesize_all(voice(), text, o) == alone);
}

TEST_F(BatchedPipeline, AFullBatchFailsTheStreamAndAnotherVoicesBatchIsRefused) {
  const auto& weights = *voice()->vocoder().weights;
  auto batch = std::make_shared<StreamBatch>(
      weights, voice()->samplers().make_multi_stream_sampler(kernels::Device::kCpu, 1), 64);
  auto holder = batch->try_join();
  engine::SynthesisOptions o;
  o.rate = 6.0f;
  o.batch = batch;
  try {
    engine::synthesize_all(voice(), "Nothing free.", o);
    ADD_FAILURE() << "a full batch took the stream";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no free stream"), std::string::npos) << e.what();
  }
  vocoder::WaveNetWeights other(weights.config());
  o.batch = std::make_shared<StreamBatch>(
      other, std::make_unique<vocoder::MultiStreamSampler>(other, 1), 64);
  engine::SynthesisStream stream(voice());
  EXPECT_THROW(stream.start("Wrong vocoder.", o), std::invalid_argument);
}
