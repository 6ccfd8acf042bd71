#include "tts/engine/chunk_assembler.h"

#include <algorithm>
#include <stdexcept>

namespace tts::engine {

ChunkAssembler::ChunkAssembler(const ChunkingOptions& options,
                               std::function<void(AudioChunk)> deliver,
                               std::function<void()> first_made)
    : options_(options), deliver_(std::move(deliver)), first_made_(std::move(first_made)) {
  if (options_.chunk_samples == 0 || options_.first_chunk_samples == 0)
    throw std::invalid_argument("ChunkAssembler: chunks must hold at least one sample");
  if (!deliver_) throw std::invalid_argument("ChunkAssembler: nowhere to deliver chunks");
}

std::size_t ChunkAssembler::next_chunk_samples() const {
  return started_ ? options_.chunk_samples
                  : std::min(options_.chunk_samples, options_.first_chunk_samples);
}

void ChunkAssembler::mark(std::string name) { due_.push_back({std::move(name), 0, position_}); }

void ChunkAssembler::pause(std::size_t samples) {
  if (sentence_) throw std::logic_error("ChunkAssembler::pause inside a sentence");
  silence(samples, std::make_shared<SentenceInfo>(), 0);
  previous_.reset();
}

void ChunkAssembler::begin_sentence(std::shared_ptr<const SentenceInfo> sentence,
                                    std::vector<std::size_t> symbol_ends, std::size_t samples) {
  if (!sentence) throw std::invalid_argument("ChunkAssembler::begin_sentence: no sentence");
  if (sentence_) throw std::logic_error("ChunkAssembler::begin_sentence inside a sentence");
  if (previous_) silence(options_.sentence_silence, previous_, previous_length_);
  for (const auto& m : sentence->marks) due_.push_back({m.name, 0, position_ + m.sample});
  sentence_ = std::move(sentence);
  symbol_ends_ = std::move(symbol_ends);
  sentence_samples_ = samples;
  offset_ = 0;
}

void ChunkAssembler::add(std::vector<float> samples) {
  if (!sentence_) throw std::logic_error("ChunkAssembler::add outside a sentence");
  for (std::size_t from = 0; from < samples.size();) {
    const std::size_t n = std::min(next_chunk_samples(), samples.size() - from);
    AudioChunk c;
    if (n == samples.size())  // a block that fits one chunk (every unshifted block) is moved
      c.samples = std::move(samples);
    else
      c.samples.assign(samples.begin() + static_cast<std::ptrdiff_t>(from),
                       samples.begin() + static_cast<std::ptrdiff_t>(from + n));
    c.sample_rate = options_.sample_rate;
    c.sentence = sentence_;
    c.sentence_offset = offset_;
    const auto k = static_cast<std::size_t>(
        std::upper_bound(symbol_ends_.begin(), symbol_ends_.end(), offset_) - symbol_ends_.begin());
    if (k < sentence_->alignment.size()) c.phoneme = sentence_->alignment[k].symbol;
    offset_ += n;
    from += n;
    hand_over(std::move(c));
    if (offset_ < sentence_samples_) deliver_held();
  }
}

void ChunkAssembler::end_sentence() {
  if (!sentence_) throw std::logic_error("ChunkAssembler::end_sentence outside a sentence");
  previous_ = std::move(sentence_);
  sentence_.reset();
  previous_length_ = offset_;
}

void ChunkAssembler::finish() {
  if (sentence_) throw std::logic_error("ChunkAssembler::finish inside a sentence");
  if (!held_ && !due_.empty()) {  // marks but no audio: one empty chunk carries them
    held_.emplace();
    held_->sample_rate = options_.sample_rate;
  }
  if (!held_) return;
  const std::uint64_t start = position_ - held_->samples.size();
  for (; !due_.empty(); due_.pop_front()) {  // at the very end
    ChunkMark m = std::move(due_.front());
    m.stream_sample = position_;
    m.sample = static_cast<std::size_t>(position_ - start);
    held_->marks.push_back(std::move(m));
  }
  held_->is_last = true;
  deliver_held();
}

std::optional<AudioChunk> ChunkAssembler::take_held() {
  std::optional<AudioChunk> held = std::move(held_);
  held_.reset();
  return held;
}

void ChunkAssembler::silence(std::size_t count, const std::shared_ptr<const SentenceInfo>& sentence,
                             std::size_t offset) {
  for (std::size_t done = 0; done < count;) {
    AudioChunk c;
    c.samples.assign(std::min(options_.chunk_samples, count - done), 0.0f);
    c.sample_rate = options_.sample_rate;
    c.sentence = sentence;
    c.sentence_offset = offset + done;
    done += c.samples.size();
    hand_over(std::move(c));
  }
}

void ChunkAssembler::hand_over(AudioChunk chunk) {
  const std::uint64_t end = position_ + chunk.samples.size();
  for (; !due_.empty() && due_.front().stream_sample < end; due_.pop_front()) {
    ChunkMark m = std::move(due_.front());
    m.stream_sample = std::max(m.stream_sample, position_);
    m.sample = static_cast<std::size_t>(m.stream_sample - position_);
    chunk.marks.push_back(std::move(m));
  }
  position_ = end;
  deliver_held();
  held_ = std::move(chunk);
  if (!started_) {
    started_ = true;
    if (first_made_) first_made_();
  }
}

void ChunkAssembler::deliver_held() {
  if (!held_) return;
  AudioChunk chunk = std::move(*held_);
  held_.reset();
  deliver_(std::move(chunk));
}

}  // namespace tts::engine
