// TD-PSOLA as the audio arrives (see psola.h). Every step (pitch marks, grains, loudness match)
// decides a value only once the samples and pitch frames it depends on are final, and the order of
// the arithmetic is that of one pass over the whole sentence, so the output does not depend on how
// the input was split.
#include "tts/kernels/psola.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tts::kernels {

namespace {

// A pitch mark: where a grain is centred, and the period there (0 where unvoiced).
struct Mark {
  std::size_t at;
  double period;
};

// Grains of unvoiced sound are this long (half of it either side of the mark) and this far apart:
// windows of 2 steps at a spacing of one add up to one, so unvoiced sound comes back unchanged.
constexpr double kUnvoicedStepSeconds = 0.005;

// The samples [base, base + size()) of a longer series: what is behind every step is dropped.
template <typename T>
class Tail {
 public:
  T& operator[](std::size_t i) { return v_[i - base_]; }
  const T& operator[](std::size_t i) const { return v_[i - base_]; }
  std::size_t end() const { return base_ + v_.size(); }
  void push_back(T value) { v_.push_back(value); }
  void grow_to(std::size_t end) {
    if (end > this->end()) v_.resize(end - base_, T{});
  }
  // Drops what is before `from`, in steps large enough to keep the copying cheap.
  void drop_before(std::size_t from) {
    if (from <= base_) return;
    const std::size_t drop = std::min(from, end()) - base_;
    if (drop < 8192 || drop * 2 < v_.size()) return;
    v_.erase(v_.begin(), v_.begin() + static_cast<std::ptrdiff_t>(drop));
    base_ += drop;
  }

 private:
  std::vector<T> v_;
  std::size_t base_ = 0;
};

}  // namespace

struct StreamingPitchShifter::State {
  State(const MelConfig& f, float semitones, const PitchConfig& p, const PitchLookahead& l)
      : ratio(std::pow(2.0, static_cast<double>(semitones) / 12.0)),
        rate(f.sample_rate),
        hop(static_cast<std::size_t>(f.hop_length)),
        unvoiced_step(kUnvoicedStepSeconds * f.sample_rate),
        // A 1 ms moving average keeps the peak picking off single noisy samples.
        half(static_cast<std::size_t>(f.sample_rate / 2000)),
        // The widest grain: a period of fmin (track_pitch's F0 is never below it) or an unvoiced
        // step, either side of its mark.
        max_reach(static_cast<std::size_t>(
            std::max({1L, std::lround(f.sample_rate / static_cast<double>(p.fmin)),
                      std::lround(kUnvoicedStepSeconds * f.sample_rate)}))),
        window_s(p.window_s),
        tracker(f, p, l) {
    prefix.push_back(0.0);
  }

  double ratio;
  bool passthrough = false;  // no shift: the input, as it comes
  int rate;
  std::size_t hop;
  double unvoiced_step;
  std::size_t half;
  std::size_t max_reach;
  double window_s;  // the tracker's analysis window
  StreamingPitchTracker tracker;

  Tail<float> x;        // the input
  Tail<double> prefix;  // prefix[i]: the sum of x[0, i)
  std::size_t received = 0;
  bool finished = false;

  std::vector<Mark> marks;  // analysis marks, in order
  double t = 0.0;           // where the next analysis mark is looked for
  bool marks_done = false;

  double ts = 0.0;    // the next synthesis mark
  std::size_t k = 0;  // the analysis mark nearest to the last synthesis mark
  bool synth_done = false;
  Tail<double> out, weight;  // the grains added up, and their windows
  Tail<float> shifted;       // out / weight, final up to shifted.end()

  std::vector<double> gain;  // the loudness match's gain per frame
  std::size_t emitted = 0;

  double smooth(std::size_t i) const {
    const std::size_t lo = i >= half ? i - half : 0, hi = std::min(received, i + half + 1);
    return (prefix[hi] - prefix[lo]) / static_cast<double>(hi - lo);
  }

  // Marks one period apart through voiced stretches, each on the largest sample of a lightly
  // smoothed copy of the signal near where the period says the next one is (the same point of
  // every cycle, so that grains line up); marks a fixed step apart where the tracker hears no
  // pitch.
  void place_analysis_marks() {
    const std::vector<float>& f0 = tracker.f0();
    while (!marks_done) {
      if (t >= static_cast<double>(received)) {
        if (finished) marks_done = true;
        break;
      }
      // The period at t: its frame must be final (at the end, the last frame stands in for any
      // beyond it, as the frame count allows).
      double period = 0.0;
      if (!f0.empty() || !finished) {
        long frame = std::max(0L, std::lround(t / static_cast<double>(hop)));
        if (finished) frame = std::min(frame, static_cast<long>(f0.size()) - 1);
        if (static_cast<std::size_t>(frame) >= f0.size()) break;
        const float hz = f0[static_cast<std::size_t>(frame)];
        period = hz > 0.0f ? rate / static_cast<double>(hz) : 0.0;
      }
      if (period <= 0.0) {
        marks.push_back({static_cast<std::size_t>(t), 0.0});
        t += unvoiced_step;
        continue;
      }
      // After a voiced mark the next is about one period on; entering a voiced stretch, anywhere
      // in the first period.
      const bool follows = !marks.empty() && marks.back().period > 0.0;
      const double from = follows ? static_cast<double>(marks.back().at) + 0.75 * period : t;
      const double to = follows ? static_cast<double>(marks.back().at) + 1.25 * period : t + period;
      // The search reads the smoothed signal up to hi + half: wait for it unless the input ended.
      if (!finished && static_cast<std::size_t>(to) + half + 1 > received) break;
      auto lo = static_cast<std::size_t>(std::max(0.0, std::ceil(from)));
      if (!marks.empty()) lo = std::max(lo, marks.back().at + 1);
      const auto hi = static_cast<std::size_t>(std::min(static_cast<double>(received), to));
      if (lo >= hi) {
        marks_done = true;
        break;
      }
      std::size_t best = lo;
      double best_value = smooth(lo);
      for (std::size_t i = lo + 1; i < hi; ++i)
        if (const double v = smooth(i); v > best_value) {
          best = i;
          best_value = v;
        }
      marks.push_back({best, period});
      t = static_cast<double>(best) + period;
    }
  }

  // Synthesis marks walk the same time axis at the new spacing; each takes the grain of the
  // analysis mark nearest to it (a grain is repeated or skipped as the spacing asks).
  void add_grains() {
    while (!synth_done) {
      if (ts >= static_cast<double>(received) || (marks.empty() && marks_done)) {
        if (finished && marks_done) synth_done = true;
        break;
      }
      if (marks.empty()) break;
      while (k + 1 < marks.size() && std::fabs(static_cast<double>(marks[k + 1].at) - ts) <=
                                         std::fabs(static_cast<double>(marks[k].at) - ts))
        ++k;
      if (k + 1 == marks.size() && !marks_done) break;  // the next mark may be nearer
      const Mark& m = marks[k];
      const double span = m.period > 0.0 ? m.period : unvoiced_step;
      const long reach = std::max(1L, std::lround(span));
      const long source = static_cast<long>(m.at), target = std::lround(ts);
      if (!finished && source + reach >= static_cast<long>(received)) break;
      const long n = static_cast<long>(received);  // the end, or beyond every sample read here
      out.grow_to(static_cast<std::size_t>(std::max(0L, target + reach + 1)));
      weight.grow_to(out.end());
      for (long j = -reach; j <= reach; ++j) {
        const long s = source + j, d = target + j;
        if (s < 0 || d < 0 || s >= n || (finished && d >= n)) continue;
        const double w = 0.5 * (1.0 + std::cos(M_PI * static_cast<double>(j) / reach));
        out[static_cast<std::size_t>(d)] += w * x[static_cast<std::size_t>(s)];
        weight[static_cast<std::size_t>(d)] += w;
      }
      ts += m.period > 0.0 ? m.period / ratio : unvoiced_step;
    }
    // No grain to come reaches below the next synthesis mark less the widest grain.
    const long next = std::lround(ts) - static_cast<long>(max_reach) - 1;
    std::size_t final_end = synth_done ? received : static_cast<std::size_t>(std::max(0L, next));
    final_end = std::min(final_end, received);
    // Raising the pitch overlaps more grains (their windows add up to about the ratio): dividing
    // by the windows' sum keeps the level of what adds in phase. Lowering it leaves dips between
    // grains, which are kept, not amplified.
    for (std::size_t i = shifted.end(); i < final_end; ++i) {
      const double o = i < out.end() ? out[i] : 0.0, w = i < weight.end() ? weight[i] : 0.0;
      shifted.push_back(static_cast<float>(o / std::max(w, 1.0)));
    }
  }

  // Grains of neighbouring periods overlap out of phase where the spacing changes, which loses
  // 1-6 dB (measured on speech, more the larger the shift): each frame of the output is brought
  // back to the loudness of the same frame of the input (RMS over two hops, the gain interpolated
  // between frame centres and kept within ±12 dB, so that silence is never blown up).
  std::vector<float> match_loudness() {
    const bool all = finished && synth_done;
    const std::size_t frames = received / hop + 1;  // once finished
    for (std::size_t f = gain.size();; f = gain.size()) {
      const std::size_t centre = f * hop, lo = centre >= hop ? centre - hop : 0;
      if (all ? f >= frames : centre + hop > shifted.end()) break;
      const std::size_t hi = std::min(received, centre + hop);
      double in = 0.0, o = 0.0;
      for (std::size_t i = lo; i < hi; ++i) {
        in += static_cast<double>(x[i]) * x[i];
        o += static_cast<double>(shifted[i]) * shifted[i];
      }
      gain.push_back(o > 1e-12 && in > 1e-12 ? std::clamp(std::sqrt(in / o), 0.25, 4.0) : 1.0);
    }
    std::vector<float> ready;
    for (;; ++emitted) {
      const std::size_t f = emitted / hop;
      if (all ? emitted >= received : f + 1 >= gain.size()) break;
      const double w = static_cast<double>(emitted - f * hop) / static_cast<double>(hop);
      const double g = f + 1 < gain.size() ? (1.0 - w) * gain[f] + w * gain[f + 1] : gain[f];
      ready.push_back(static_cast<float>(shifted[emitted] * g));
    }
    return ready;
  }

  std::vector<float> advance() {
    place_analysis_marks();
    add_grains();
    std::vector<float> ready = match_loudness();
    // What no step reads again: before the grain source of the nearest mark, the next gain
    // frame's span and what is yet to be handed over, less the widest grain and the smoothing.
    std::size_t keep = std::min(gain.size() * hop, emitted);
    if (!marks.empty()) keep = std::min(keep, marks[k].at);
    keep = keep > hop + max_reach + half + 1 ? keep - (hop + max_reach + half + 1) : 0;
    x.drop_before(keep);
    prefix.drop_before(keep);
    out.drop_before(keep);
    weight.drop_before(keep);
    shifted.drop_before(keep);
    return ready;
  }
};

StreamingPitchShifter::StreamingPitchShifter(const MelConfig& features, float semitones,
                                             const PitchConfig& pitch,
                                             const PitchLookahead& lookahead) {
  if (!std::isfinite(semitones) || std::fabs(semitones) > 24.0f)
    throw std::invalid_argument("shift_pitch: the shift must be within ±24 semitones, not " +
                                std::to_string(semitones));
  pitch.validate(features);  // before State divides by fmin
  lookahead.validate();
  s_ = std::make_unique<State>(features, semitones, pitch, lookahead);
  s_->passthrough = semitones == 0.0f;
}

StreamingPitchShifter::~StreamingPitchShifter() = default;

std::vector<float> StreamingPitchShifter::push(const float* samples, std::size_t n) {
  State& s = *s_;
  if (s.finished) throw std::logic_error("StreamingPitchShifter::push after finish");
  if (s.passthrough) return std::vector<float>(samples, samples + n);  // no shift, no change
  for (std::size_t i = 0; i < n; ++i) {
    s.x.push_back(samples[i]);
    s.prefix.push_back(s.prefix[s.prefix.end() - 1] + samples[i]);
  }
  s.received += n;
  s.tracker.push(samples, n);
  return s.advance();
}

std::vector<float> StreamingPitchShifter::finish() {
  State& s = *s_;
  if (s.finished) return {};
  s.finished = true;
  if (s.passthrough) return {};
  s.tracker.finish();
  return s.advance();
}

std::size_t StreamingPitchShifter::lookahead_samples() const {
  const State& s = *s_;
  if (s.passthrough) return 0;
  // The tracker's frames (and the window after the last one's centre), then a mark's search
  // (1.25 periods and the smoothing), the next mark and the widest grain either side, and the
  // two frames of the loudness match.
  const auto window = static_cast<std::size_t>(std::ceil(s.window_s * s.rate));
  return static_cast<std::size_t>(s.tracker.lookahead_frames() + 1) * s.hop + window +
         3 * s.max_reach + 2 * s.half + 3 * s.hop;
}

std::vector<float> shift_pitch(const float* samples, std::size_t n, const MelConfig& features,
                               float semitones, const PitchConfig& pitch) {
  StreamingPitchShifter shifter(features, semitones, pitch);
  std::vector<float> shifted = shifter.push(samples, n);
  const std::vector<float> rest = shifter.finish();
  shifted.insert(shifted.end(), rest.begin(), rest.end());
  return shifted;
}

}  // namespace tts::kernels
