// track_pitch's frames as the audio arrives (see pitch_stream.h). Each stage of track_pitch's
// clean-up is a list of final frames that grows as the stage before it gets far enough ahead.
#include "tts/kernels/pitch_stream.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "pitch_frames.h"
#include "tts/kernels/stft.h"

namespace tts::kernels {

void PitchLookahead::validate() const {
  if (silence_frames < 0)
    throw std::invalid_argument(
        "PitchLookahead.silence_frames = " + std::to_string(silence_frames) + ": must be >= 0");
  if (octave_frames < 0)
    throw std::invalid_argument("PitchLookahead.octave_frames = " + std::to_string(octave_frames) +
                                ": must be >= 0");
}

struct StreamingPitchTracker::State {
  State(const MelConfig& f, const PitchConfig& c, const PitchLookahead& l)
      : features(f), config(c), lookahead(l), yin(f, c) {}

  MelConfig features;
  PitchConfig config;
  PitchLookahead lookahead;
  detail::YinFrames yin;

  // Samples [base, received) (earlier ones are no longer needed by any frame's window).
  std::vector<float> samples;
  std::size_t base = 0, received = 0;
  bool finished = false;
  std::size_t frames = 0;  // the frame count, once finished

  // The stages, each indexed by frame from 0: aubio's reading, the loudest window up to each
  // frame, then F0 after voicing, octave correction, gap filling, the minimum run and the median.
  std::vector<detail::RawPitchFrame> raw;
  std::vector<float> loudest, voiced, octave, filled, runs, f0;

  // Whether frame f of a stage can be decided from `upstream` (the stage before it, final up to
  // upstream.size()) when the stage needs `ahead` frames after f.
  template <typename T>
  bool ready(std::size_t f, const std::vector<T>& upstream, std::size_t ahead) const {
    if (finished && upstream.size() == frames) return f < frames;
    return f + ahead < upstream.size();
  }

  bool frame_measurable(std::size_t f) const {
    if (finished) return f < frames;
    const std::size_t hop = static_cast<std::size_t>(features.hop_length);
    const std::size_t last = features.center ? f * hop : f * hop + features.n_fft;
    const std::ptrdiff_t end = yin.window_start(f) + yin.window();
    return last <= received && end <= static_cast<std::ptrdiff_t>(received);
  }

  void measure() {
    while (frame_measurable(raw.size())) {
      const std::size_t f = raw.size();
      raw.push_back(yin.analyse(f, samples.data(), static_cast<std::ptrdiff_t>(base),
                                static_cast<std::ptrdiff_t>(received)));
      loudest.push_back(f == 0 ? raw[f].power_db : std::max(loudest[f - 1], raw[f].power_db));
    }
    // Frames to come start their windows at window_start(raw.size()) or later.
    const std::ptrdiff_t keep = std::max<std::ptrdiff_t>(0, yin.window_start(raw.size()));
    const auto drop = std::min(static_cast<std::size_t>(keep), received) - base;
    if (drop >= 8192 && drop * 2 >= samples.size()) {
      samples.erase(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(drop));
      base += drop;
    }
  }

  // Voiced: a confident estimate inside [fmin, fmax], in a window that is not silent (against the
  // loudest window up to silence_frames ahead).
  void decide_voicing() {
    const auto ahead = static_cast<std::size_t>(lookahead.silence_frames);
    for (std::size_t f = voiced.size(); ready(f, raw, ahead); f = voiced.size()) {
      const float reference = loudest[std::min(f + ahead, raw.size() - 1)];
      const detail::RawPitchFrame& r = raw[f];
      const bool loud_enough =
          r.power_db >= config.silence_db && r.power_db >= reference + config.relative_silence_db;
      const bool in_range = r.f0 >= config.fmin && r.f0 <= config.fmax;
      voiced.push_back(loud_enough && in_range && r.confidence >= config.min_confidence ? r.f0
                                                                                        : 0.0f);
    }
  }

  // Octave errors: as track_pitch, against the voiced frames from octave_context_frames before
  // to octave_frames after.
  void correct_octaves() {
    const auto ahead = static_cast<std::size_t>(lookahead.octave_frames);
    const auto behind = static_cast<std::size_t>(config.octave_context_frames);
    std::vector<float> neighbours;
    for (std::size_t f = octave.size(); ready(f, voiced, ahead); f = octave.size()) {
      const float v = voiced[f];
      if (v <= 0.0f || config.octave_jump <= 0.0f) {
        octave.push_back(v);
        continue;
      }
      neighbours.clear();
      const std::size_t lo = f > behind ? f - behind : 0;
      const std::size_t hi = std::min(voiced.size(), f + ahead + 1);
      for (std::size_t g = lo; g < hi; ++g)
        if (voiced[g] > 0.0f) neighbours.push_back(std::log2(voiced[g]));
      const float octaves = std::log2(v) - detail::median_of(neighbours);
      if (std::fabs(octaves) < config.octave_jump) {
        octave.push_back(v);
        continue;
      }
      const float shifted = v * std::exp2(-std::round(octaves));
      octave.push_back(shifted >= config.fmin && shifted <= config.fmax ? shifted : 0.0f);
    }
  }

  // Unvoiced gaps of up to fill_gap_frames between two voiced frames: F0 interpolated in log
  // frequency, as track_pitch.
  void fill_gaps() {
    const auto gap = static_cast<std::size_t>(config.fill_gap_frames);
    for (std::size_t g = filled.size(); ready(g, octave, gap); g = filled.size()) {
      float value = octave[g];
      if (value <= 0.0f && gap > 0) {
        std::size_t begin = g;  // the gap's first frame, at most `gap` frames back
        while (begin > 0 && octave[begin - 1] <= 0.0f && g - begin + 1 <= gap) --begin;
        std::size_t end = g + 1;  // the first voiced frame after it, if within reach
        while (end < octave.size() && octave[end] <= 0.0f && end - begin < gap) ++end;
        if (begin > 0 && octave[begin - 1] > 0.0f && end < octave.size() && octave[end] > 0.0f &&
            end - begin <= gap) {
          const float a = std::log2(octave[begin - 1]), b = std::log2(octave[end]);
          const float span = static_cast<float>(end - begin + 1);
          value = std::exp2(a + (b - a) * static_cast<float>(g - begin + 1) / span);
        }
      }
      filled.push_back(value);
    }
  }

  // Voiced runs shorter than min_voiced_frames become unvoiced.
  void drop_short_runs() {
    const auto need = static_cast<std::size_t>(config.min_voiced_frames);
    for (std::size_t f = runs.size(); ready(f, filled, need - 1); f = runs.size()) {
      if (filled[f] <= 0.0f || need <= 1) {
        runs.push_back(filled[f]);
        continue;
      }
      std::size_t length = 1;
      for (std::size_t g = f; g > 0 && length < need && filled[g - 1] > 0.0f; --g) ++length;
      for (std::size_t g = f + 1; g < filled.size() && length < need && filled[g] > 0.0f; ++g)
        ++length;
      runs.push_back(length >= need ? filled[f] : 0.0f);
    }
  }

  // Median filter within each voiced run (off at the default median_frames = 1).
  void smooth() {
    const auto half = static_cast<std::size_t>(config.median_frames / 2);
    std::vector<float> window;
    for (std::size_t f = f0.size(); ready(f, runs, half); f = f0.size()) {
      if (runs[f] <= 0.0f || half == 0) {
        f0.push_back(runs[f]);
        continue;
      }
      std::size_t lo = f, hi = f + 1;
      while (lo > 0 && f - lo < half && runs[lo - 1] > 0.0f) --lo;
      while (hi < runs.size() && hi - f <= half && runs[hi] > 0.0f) ++hi;
      window.assign(runs.begin() + static_cast<std::ptrdiff_t>(lo),
                    runs.begin() + static_cast<std::ptrdiff_t>(hi));
      f0.push_back(detail::median_of(window));
    }
  }

  void advance() {
    measure();
    decide_voicing();
    correct_octaves();
    fill_gaps();
    drop_short_runs();
    smooth();
  }
};

StreamingPitchTracker::StreamingPitchTracker(const MelConfig& features, const PitchConfig& config,
                                             const PitchLookahead& lookahead) {
  s_ = std::make_unique<State>(features, config, lookahead);  // validates the config first
  lookahead.validate();
}

StreamingPitchTracker::~StreamingPitchTracker() = default;

void StreamingPitchTracker::push(const float* samples, std::size_t n) {
  if (s_->finished) throw std::logic_error("StreamingPitchTracker::push after finish");
  s_->samples.insert(s_->samples.end(), samples, samples + n);
  s_->received += n;
  s_->advance();
}

void StreamingPitchTracker::finish() {
  if (s_->finished) return;
  s_->finished = true;
  s_->frames = stft_frame_count(s_->received, s_->features.n_fft, s_->features.hop_length,
                                s_->features.center);
  s_->advance();
}

bool StreamingPitchTracker::finished() const { return s_->finished; }

const std::vector<float>& StreamingPitchTracker::f0() const { return s_->f0; }

int StreamingPitchTracker::lookahead_frames() const {
  return s_->lookahead.silence_frames + s_->lookahead.octave_frames + s_->config.fill_gap_frames +
         s_->config.min_voiced_frames - 1 + s_->config.median_frames / 2;
}

}  // namespace tts::kernels
