// The pitch shift a voice with "pitch_shift": "audio" applies to each sentence
// (kernels::shift_pitch, TD-PSOLA; streamed in the vocoder's 2048-sample blocks by
// StreamingPitchShifter, as the pipeline does), beside the two passes over the same audio it can be
// compared with: the pitch tracker it calls (track_pitch) and the log-mel features (MelExtractor).
// Counter "x_real_time": seconds of audio per second of CPU. Run: build/benchmarks/psola_bench
// (compare within one run).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "tts/kernels/mel.h"
#include "tts/kernels/pitch.h"
#include "tts/kernels/psola.h"

using namespace tts::kernels;

namespace {

constexpr int kRate = 16000;

// Four seconds of a speech-like signal: a glottal pulse train whose F0 glides between 150 and
// 250 Hz, through two formant resonators (700 and 1,800 Hz), broken every 0.4 s by 0.1 s of noise
// (an unvoiced consonant).
const std::vector<float>& speech_like() {
  static const std::vector<float> audio = [] {
    std::vector<float> x(4 * kRate);
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    double phase = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double t = static_cast<double>(i) / kRate;
      phase += (200.0 + 50.0 * std::sin(2.0 * M_PI * 0.7 * t)) / kRate;
      const bool unvoiced = std::fmod(t, 0.4) > 0.3;
      x[i] = unvoiced ? noise(rng) : (phase - std::floor(phase) < 0.02 ? 1.0f : 0.0f);
    }
    for (double f : {700.0, 1800.0}) {  // two-pole resonators, 100 Hz wide
      const double r = std::exp(-M_PI * 100.0 / kRate),
                   c = 2.0 * r * std::cos(2.0 * M_PI * f / kRate);
      double y1 = 0.0, y2 = 0.0;
      for (float& v : x) {
        const double y = v + c * y1 - r * r * y2;
        y2 = y1;
        y1 = y;
        v = static_cast<float>(0.05 * y);
      }
    }
    return x;
  }();
  return audio;
}

MelConfig features() {
  MelConfig c;
  c.sample_rate = kRate;
  return c;
}

void set_real_time(benchmark::State& state) {
  state.counters["x_real_time"] = benchmark::Counter(
      static_cast<double>(speech_like().size()) / kRate * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

void BM_ShiftPitch(benchmark::State& state) {
  const std::vector<float>& x = speech_like();
  for (auto _ : state) {
    std::vector<float> y = shift_pitch(x.data(), x.size(), features(), 4.0f);
    benchmark::DoNotOptimize(y.data());
  }
  set_real_time(state);
}

void BM_ShiftPitchStreaming(benchmark::State& state) {
  const std::vector<float>& x = speech_like();
  constexpr std::size_t kBlock = 2048;  // SynthesisOptions::chunk_samples' default
  for (auto _ : state) {
    StreamingPitchShifter shifter(features(), 4.0f);
    std::size_t made = 0;
    for (std::size_t i = 0; i < x.size(); i += kBlock)
      made += shifter.push(x.data() + i, std::min(kBlock, x.size() - i)).size();
    made += shifter.finish().size();
    benchmark::DoNotOptimize(made);
  }
  set_real_time(state);
}

void BM_TrackPitch(benchmark::State& state) {
  const std::vector<float>& x = speech_like();
  for (auto _ : state) {
    std::vector<float> f0 = track_pitch(x.data(), x.size(), features());
    benchmark::DoNotOptimize(f0.data());
  }
  set_real_time(state);
}

void BM_LogMel(benchmark::State& state) {
  const std::vector<float>& x = speech_like();
  const MelExtractor mel(features());
  for (auto _ : state) {
    Eigen::MatrixXf m = mel.compute(x.data(), x.size());
    benchmark::DoNotOptimize(m.data());
  }
  set_real_time(state);
}

}  // namespace

BENCHMARK(BM_ShiftPitch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ShiftPitchStreaming)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TrackPitch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LogMel)->Unit(benchmark::kMillisecond);
