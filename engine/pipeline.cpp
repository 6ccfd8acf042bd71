#include "tts/engine/pipeline.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <optional>
#include <thread>

#include "exit_guard.h"
#include "tts/engine/bounded_queue.h"
#include "tts/engine/chunk_assembler.h"
#include "tts/engine/stream_batch.h"
#include "tts/engine/voice_language.h"
#include "tts/frontend/ssml.h"
#include "tts/frontend/ssml_pipeline.h"
#include "tts/frontend/utf8.h"
#include "tts/kernels/device.h"
#include "tts/kernels/psola.h"
#include "tts/kernels/seed.h"
#include "tts/vocoder/sample_codec.h"
#include "tts/vocoder/sampler_interface.h"

namespace tts::engine {

namespace {

struct Cancelled {};  // unwinds the frontend thread out of TextPipeline::process

constexpr std::size_t kFirstChunkSamples = 256;

// The frontend waits (at most this long) for the stream's first chunk to be made before it
// prepares the second sentence: on one core the two would otherwise share it and the first audio
// would come later. The wait changes no audio.
constexpr std::chrono::milliseconds kFirstChunkWait{250};

// One unit of work for the vocoder: a sentence's mel frames, a pause, marks, or the frontend's
// error. A sentence's frames come in parts as the acoustic model decodes them
// (AcousticModel::synthesize_in_parts): its item holds the first ones, and while `more_frames`
// says so the next item holds the next ones (only `mel`, or the error that stopped them).
struct Prepared {
  std::shared_ptr<const SentenceInfo> info;
  kernels::Matrix mel;
  bool more_frames = false;
  std::size_t samples = 0;  // of the sentence's audio, which its alignment tiles
  // Where each symbol stops sounding, in samples of the sentence (ChunkAssembler::begin_sentence).
  std::vector<std::size_t> symbol_ends;
  std::size_t pause_samples = 0;
  std::vector<std::string> marks;  // marks outside any sentence, due where the stream has got to
  float volume = 1.0f;
  float audio_pitch_semitones = 0.0f;  // the shift made on its audio (PitchShiftMethod::kAudio)
  std::exception_ptr error;
};

struct Output {
  AudioChunk chunk;
  std::exception_ptr error;
};

std::exception_ptr classify(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const frontend::InvalidUtf8Error& e) {
    return std::make_exception_ptr(SynthesisInputError(e.what()));
  } catch (const frontend::UnknownPhonemeError& e) {
    return std::make_exception_ptr(SynthesisInputError(e.what()));
  } catch (const frontend::SsmlError& e) {
    return std::make_exception_ptr(SynthesisInputError(e.what()));
  } catch (...) {
    return error;
  }
}

}  // namespace

void SynthesisOptions::validate() const {
  auto bad = [](const std::string& what) { throw std::invalid_argument(what); };
  if (!(rate > 0.0f) || !std::isfinite(rate) || rate > 10.0f) bad("rate must be in (0, 10]");
  if (!std::isfinite(pitch_semitones) || std::fabs(pitch_semitones) > 24.0f)
    bad("pitch must be within ±24 semitones");
  if (!(volume >= 0.0f) || !std::isfinite(volume) || volume > 100.0f)
    bad("volume must be in [0, 100]");
  if (!(sentence_silence >= 0.0f) || sentence_silence > 60.0f)
    bad("sentence silence must be in [0, 60] seconds");
  if (!(temperature >= 0.0f) || !std::isfinite(temperature) || temperature > 10.0f)
    bad("temperature must be in [0, 10]");
  if (threads < 1 || threads > 256) bad("threads must be in [1, 256]");
  if (chunk_samples < 1 || chunk_samples > (1u << 22)) bad("chunk_samples must be in [1, 4194304]");
  if (language.find('\0') != std::string::npos) bad(*language_tag_problem(language));
  if (queue_chunks < 1 || queue_chunks > 4096) bad("queue_chunks must be in [1, 4096]");
  if (sentences_ahead < 1 || sentences_ahead > 1024) bad("sentences_ahead must be in [1, 1024]");
  if (device == kernels::Device::kCuda && !kernels::cuda_backend_built())
    bad("device cuda: this build has no CUDA backend (configure with -DTTS_CUDA=ON)");
}

struct SynthesisStream::Run final : StoppableAtExit {
  Run(std::shared_ptr<const Voice> v, std::string t, const SynthesisOptions& o)
      : voice(std::move(v)),
        text(std::move(t)),
        options(o),
        sentences(o.sentences_ahead),
        audio(o.queue_chunks) {}
  ~Run() {
    if (registered) unregister_at_exit(this);
  }

  void cancel() {
    cancelled = true;
    sentences.close(true);
    audio.close(true);
    first_chunk_made();  // a waiting frontend sees `cancelled`
  }
  void first_chunk_made() {
    std::lock_guard<std::mutex> lock(first_chunk_mutex);
    first_chunk = true;
    first_chunk_cv.notify_all();
  }
  void wait_for_first_chunk() {
    std::unique_lock<std::mutex> lock(first_chunk_mutex);
    first_chunk_cv.wait_for(lock, kFirstChunkWait, [&] { return first_chunk || cancelled; });
  }
  // Joins the worker threads (after cancel(), or once they are done). The owner's stop() and the
  // exit handler may both get here.
  void join() {
    std::lock_guard<std::mutex> lock(join_mutex);
    for (std::thread* t : {&frontend, &vocoder})
      if (t->joinable() && t->get_id() != std::this_thread::get_id()) t->join();
  }
  void stop_at_exit() override {
    cancel();
    join();
  }

  void frontend_main();
  void vocoder_main();
  void prepare(const frontend::PhonemizedSentence& s, const frontend::Prosody& prosody);
  // The vocoder's item for a sentence whose acoustic model gave `first` (its durations and first
  // frames; all of them when `last`).
  Prepared sentence_item(const frontend::PhonemizedSentence& s, acoustic::AcousticOutput first,
                         bool last);
  // The next part of the frames of the sentence being vocoded (Prepared::more_frames); rethrows
  // the error that stopped the frontend, and unwinds with Cancelled when the stream is cancelled.
  Prepared next_frames();
  void push(Prepared item) {
    if (cancelled || !sentences.push(std::move(item))) throw Cancelled{};
  }

  std::shared_ptr<const Voice> voice;
  std::string text;
  SynthesisOptions options;
  std::atomic<bool> cancelled{false};
  BoundedQueue<Prepared> sentences;
  BoundedQueue<Output> audio;
  int next_index = 0;
  std::thread frontend, vocoder;
  std::mutex join_mutex;
  bool registered = false;
  std::mutex first_chunk_mutex;
  std::condition_variable first_chunk_cv;
  bool first_chunk = false;  // the vocoder has made the stream's first chunk (or given up)
};

void SynthesisStream::Run::prepare(const frontend::PhonemizedSentence& s,
                                   const frontend::Prosody& prosody) {
  if (cancelled) throw Cancelled{};
  if (s.phonemes.empty()) return;  // nothing to pronounce
  acoustic::AcousticControls controls;
  controls.rate = options.rate * static_cast<float>(prosody.rate);
  // SSML's <prosody pitch> adds to the stream's shift, within ±24 semitones; a voice that cannot
  // shift pitch ignores it (prosody is a hint in SSML; --pitch is refused in start() instead).
  // The shift is made where the voice says: on the audio, or by the acoustic model.
  const float shift =
      std::clamp(options.pitch_semitones + 12.0f * static_cast<float>(std::log2(prosody.pitch)),
                 -24.0f, 24.0f);
  float audio_shift = 0.0f;
  if (voice->info().pitch_shift == PitchShiftMethod::kAudio)
    audio_shift = shift;
  else if (voice->acoustic().predicts_pitch())
    controls.pitch_semitones = shift;
  const float volume = options.volume * static_cast<float>(prosody.volume);
  bool begun = false;
  voice->acoustic().synthesize_in_parts(
      std::vector<int32_t>(s.ids.begin(), s.ids.end()), controls,
      [&](acoustic::AcousticOutput part, bool last) {
        // Weights that are finite can still overflow (all 3e38): such frames would be vocoded
        // into full-scale noise. One pass over the frames, little beside the vocoder's work.
        if (!part.mel.allFinite())
          throw VoiceError("voice \"" + voice->info().name +
                           "\": its acoustic model gives frames that are not finite numbers (its "
                           "weights overflow); the voice is damaged and cannot speak");
        if (begun) {
          Prepared more;
          more.mel = std::move(part.mel);
          more.more_frames = !last;
          push(std::move(more));
          return;
        }
        begun = true;
        Prepared item = sentence_item(s, std::move(part), last);
        item.volume = volume;
        item.audio_pitch_semitones = audio_shift;
        const bool first = item.info->index == 0;
        push(std::move(item));
        if (first) wait_for_first_chunk();
      });
}

Prepared SynthesisStream::Run::sentence_item(const frontend::PhonemizedSentence& s,
                                             acoustic::AcousticOutput first, bool last) {
  Prepared item;
  auto info = std::make_shared<SentenceInfo>();
  info->index = next_index++;
  info->text = s.text;
  info->phonemes = s.phonemes;
  std::vector<int> frame_ends;  // cumulative durations: frames up to and including id k
  int total = 0;
  for (int d : first.durations) frame_ends.push_back(total += d);
  item.mel = std::move(first.mel);
  item.more_frames = !last;
  if (last && item.mel.cols() < 2) {  // the sampler needs two frames; pad with silence
    const Eigen::Index had = item.mel.cols();
    item.mel.conservativeResize(item.mel.rows(), 2);
    item.mel.rightCols(2 - had).setConstant(std::log(voice->features().log_floor));
  }
  // The sampler makes (frames − 1) hops of audio from centred frames; symbol k sounds from the
  // start of its first frame (as a chunk's `phoneme` is found), and the last symbol runs to the
  // end of the audio, padding included.
  const auto hop = static_cast<std::size_t>(voice->features().hop_length);
  const std::size_t audio = static_cast<std::size_t>(std::max(total, 2) - 1) * hop;
  std::size_t start = 0;
  for (std::size_t k = 0; k < s.ids.size(); ++k) {
    const std::size_t end = k + 1 == s.ids.size()
                                ? audio
                                : std::min(audio, static_cast<std::size_t>(frame_ends[k]) * hop);
    info->alignment.push_back({voice->symbols().symbol(s.ids[k]), start, end - start});
    start = end;
  }
  // A chunk's phoneme is the symbol sounding at its first sample by the durations alone, not cut
  // at the audio's end as the alignment is.
  for (int end : frame_ends) item.symbol_ends.push_back(static_cast<std::size_t>(end) * hop);
  item.samples = audio;  // the sampler's too: the voice's vocoder has the features' hop
  for (const auto& m : s.marks)
    info->marks.push_back(
        {m.name, m.symbol,
         m.symbol < info->alignment.size() ? info->alignment[m.symbol].start : audio});
  item.info = std::move(info);
  return item;
}

void SynthesisStream::Run::frontend_main() {
  try {
    const auto& pipeline = voice->text();
    const std::size_t language = pipeline.find_language(options.language).value_or(0);
    if (!options.ssml) {
      pipeline.process(
          text, [&](frontend::PhonemizedSentence s) { prepare(s, {}); }, language);
    } else {
      const frontend::SsmlDocument doc = frontend::parse_ssml(text, pipeline.languages(), language);
      if (cancelled) throw Cancelled{};  // the walk's every step (push, prepare) checks too
      frontend::SsmlHandlers handlers;
      handlers.sentence = [&](frontend::PhonemizedSentence s, const frontend::Prosody& prosody) {
        prepare(s, prosody);
      };
      handlers.pause = [&](int milliseconds) {
        Prepared pause;
        pause.pause_samples = static_cast<std::size_t>(static_cast<double>(milliseconds) *
                                                       voice->sample_rate() / 1000.0);
        if (pause.pause_samples > 0) push(std::move(pause));
      };
      handlers.mark = [&](const std::string& name) {
        Prepared marks;
        marks.marks.push_back(name);
        push(std::move(marks));
      };
      frontend::process_ssml(doc, pipeline, handlers);
    }
    sentences.close();
  } catch (const Cancelled&) {
  } catch (...) {
    Prepared failure;
    failure.error = classify(std::current_exception());
    sentences.push(std::move(failure));
    sentences.close();
  }
}

void SynthesisStream::Run::vocoder_main() {
  const vocoder::WaveNetConfig& config = voice->vocoder().weights->config();
  const std::size_t silence_samples = static_cast<std::size_t>(
      std::lround(static_cast<double>(options.sentence_silence) * voice->sample_rate()));
  // Chunks go to the caller's queue as they are finished; a cancelled stream stops at the next.
  ChunkAssembler chunks(
      {voice->sample_rate(), options.chunk_samples, kFirstChunkSamples, silence_samples},
      [&](AudioChunk c) {
        if (cancelled || !audio.push(Output{std::move(c), nullptr})) throw Cancelled{};
      },
      [&] { first_chunk_made(); });
  // A failure ends the stream after the audio made before it: the chunk held back goes out (not
  // marked last), then the error.
  auto fail = [&](std::exception_ptr error) {
    if (auto held = chunks.take_held()) audio.push(Output{std::move(*held), nullptr});
    audio.push(Output{{}, std::move(error)});
    audio.close();
  };
  try {
    // One sampler for every sentence, reseeded for each (sampler_interface.h): the stream's own,
    // or its place in a serving batch.
    std::unique_ptr<vocoder::Sampler> sampler;
    if (options.batch) {
      sampler = options.batch->try_join();
      if (!sampler)
        throw std::runtime_error("the serving batch has no free stream (all " +
                                 std::to_string(options.batch->slots()) + " are in use)");
    } else {
      sampler = voice->samplers().make_sampler(
          options.device, {options.seed, options.temperature, options.threads});
    }
    std::vector<int32_t> block(options.chunk_samples);
    while (auto item = sentences.pop()) {
      if (item->error) {
        fail(item->error);
        return;
      }
      if (!item->marks.empty()) {
        for (auto& name : item->marks) chunks.mark(std::move(name));
        continue;
      }
      if (item->pause_samples > 0) {
        chunks.pause(item->pause_samples);
        continue;
      }
      chunks.begin_sentence(item->info, std::move(item->symbol_ends), item->samples);
      // A sampler that takes frames in parts starts on the first ones (the first audio waits for
      // them only); the others wait for the whole sentence. The audio is the same.
      bool more_frames = item->more_frames;
      while (more_frames && !sampler->takes_frames_in_parts()) {
        Prepared more = next_frames();
        item->mel.conservativeResize(Eigen::NoChange, item->mel.cols() + more.mel.cols());
        item->mel.rightCols(more.mel.cols()) = more.mel;
        more_frames = more.more_frames;
      }
      sampler->start(0, item->mel, kernels::sentence_seed(options.seed, item->info->index));
      vocoder::SampleDecoder decoder(config);
      // A shift on the audio (PitchShiftMethod::kAudio) streams with a bounded lookahead: the
      // shifter hands back what is final as the vocoder goes (the same audio however it is split,
      // as long as it was made) and the rest at the sentence's end.
      std::optional<kernels::StreamingPitchShifter> shifter;
      if (item->audio_pitch_semitones != 0.0f)
        shifter.emplace(voice->features(), item->audio_pitch_semitones);
      // A block of what the next chunk holds: the stream's first chunk is short, so audio starts
      // sooner (the chunking never changes the audio itself).
      for (;;) {
        // A chunk may span the frames' parts: it is filled as the next part comes, so chunks
        // keep their sizes.
        const std::size_t want = chunks.next_chunk_samples();
        std::size_t made = 0;
        while (made < want) {
          const std::size_t n =
              sampler->generate({want - made}, want - made, block.data() + made).front();
          made += n;
          if (n > 0) continue;
          if (!more_frames) break;
          Prepared more = next_frames();
          more_frames = more.more_frames;
          sampler->extend(0, more.mel);
        }
        if (made == 0) break;
        if (cancelled) throw Cancelled{};
        std::vector<float> samples(made);
        for (std::size_t i = 0; i < made; ++i) samples[i] = item->volume * decoder.decode(block[i]);
        chunks.add(shifter ? shifter->push(samples.data(), samples.size()) : std::move(samples));
      }
      if (shifter) chunks.add(shifter->finish());
      chunks.end_sentence();
    }
    if (cancelled) return;
    chunks.finish();
    audio.close();
  } catch (const Cancelled&) {
  } catch (...) {
    sentences.close(true);  // the frontend need not run ahead any more
    first_chunk_made();     // nor wait for audio
    fail(std::current_exception());
  }
}

Prepared SynthesisStream::Run::next_frames() {
  std::optional<Prepared> more = sentences.pop();
  if (!more) throw Cancelled{};  // closed early: only cancel() does that mid-sentence
  if (more->error) std::rethrow_exception(more->error);
  return std::move(*more);
}

SynthesisStream::SynthesisStream(std::shared_ptr<const Voice> voice) : voice_(std::move(voice)) {
  if (!voice_) throw std::invalid_argument("SynthesisStream: no voice");
}

SynthesisStream::~SynthesisStream() { stop(); }

void SynthesisStream::stop() {
  std::shared_ptr<Run> run;
  {
    std::lock_guard<std::mutex> lock(run_mutex_);
    run = std::move(run_);
  }
  if (!run) return;
  run->cancel();
  run->join();
}

void SynthesisStream::start(std::string text, const SynthesisOptions& options) {
  options.validate();
  if (options.pitch_semitones != 0.0f && !voice_->can_shift_pitch())
    throw std::invalid_argument(
        "pitch: this voice's acoustic model does not predict pitch (acoustic format_version 2, "
        "from before tts had pitch and energy), so it cannot shift it; use a voice trained with "
        "this version of tts, or repack it with `tts voices pack --pitch-shift audio`");
  if (!options.language.empty() && !voice_->text().find_language(options.language))
    throw std::invalid_argument("language \"" + options.language + "\": voice \"" +
                                voice_->info().name + "\" speaks " +
                                voice_->info().languages_text());
  if (options.batch && &options.batch->weights() != voice_->vocoder().weights.get())
    throw std::invalid_argument(
        "batch: the serving batch samples another vocoder than this voice's");
  stop();
  if (process_exiting()) throw std::runtime_error("synthesis cannot start: the program is exiting");
  auto run = std::make_shared<Run>(voice_, std::move(text), options);
  register_at_exit(run.get());
  run->registered = true;
  run->frontend = std::thread([r = run.get()] { r->frontend_main(); });
  try {
    run->vocoder = std::thread([r = run.get()] { r->vocoder_main(); });
  } catch (...) {
    run->cancel();
    run->frontend.join();
    throw;
  }
  std::lock_guard<std::mutex> lock(run_mutex_);
  run_ = std::move(run);
}

bool SynthesisStream::next(AudioChunk& chunk) {
  Run* run = run_.get();  // only this (the owning) thread replaces run_
  if (!run) throw std::logic_error("next() called before start()");
  std::optional<Output> out = run->audio.pop();
  if (!out) {
    if (run->cancelled) throw SynthesisCancelled();
    return false;
  }
  if (out->error) std::rethrow_exception(out->error);
  chunk = std::move(out->chunk);
  return true;
}

void SynthesisStream::cancel() {
  std::lock_guard<std::mutex> lock(run_mutex_);
  if (run_) run_->cancel();
}

std::vector<float> synthesize_all(std::shared_ptr<const Voice> voice, const std::string& text,
                                  const SynthesisOptions& options) {
  SynthesisStream stream(std::move(voice));
  stream.start(text, options);
  std::vector<float> audio;
  AudioChunk chunk;
  while (stream.next(chunk)) audio.insert(audio.end(), chunk.samples.begin(), chunk.samples.end());
  return audio;
}

}  // namespace tts::engine
