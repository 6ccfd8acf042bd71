// `tts bench pipeline`: time to first audio and end-to-end real-time factor of the streaming
// pipeline (text → phonemes → mel → WaveNet → chunks) for a paragraph, as one JSON line.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench_voice.h"
#include "commands.h"
#include "tts/acoustic/model_files.h"
#include "tts/acoustic/network.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice.h"
#include "tts/frontend/sentence_splitter.h"
#include "tts/kernels/linear_algebra.h"
#include "tts/vocoder/sampler.h"
#include "weights_option.h"

namespace tts::cli {

namespace {

constexpr const char* kParagraph =
    "The quick brown fox jumps over the lazy dog. A journey of a thousand miles begins with a "
    "single step. Speech synthesis turns written text into sound, one sample at a time. The "
    "vocoder listens to the mel frames and answers with a waveform. Good tools are quiet: they do "
    "their work and get out of the way.";

struct PipelineBenchOptions {
  std::string voice;          // empty: a random voice of `size` in a temporary folder
  std::string size = "full";  // of the random voice
  std::string text = kParagraph;
  int threads = 1;
  kernels::WeightPrecision weights = kernels::default_weight_precision();
  std::uint64_t seed = 0;
  std::size_t chunk_samples = 2048;
  float pitch_semitones = 0.0f;
  int phases = 0;  // > 0: time the stages before the first audio this many times instead
};

// OpenBLAS's kernels, and the fallback they replaced if OpenBLAS had not known the CPU.
std::string gemm_kernels_note() {
  const char* from = nullptr;
  std::string note = kernels::gemm_kernels(&from);
  if (from && *from) note += std::string(" (OpenBLAS chose ") + from + ")";
  return note;
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The stages that come before a stream's first audio, run one after another on this thread for the
// first sentence of the text, `runs` times (the first run is reported apart: it pays the first-call
// costs), then those that follow it (the rest of the sentence's frames, the next chunk). Wall and
// thread CPU seconds per stage, as one JSON line.
void bench_phases(const std::filesystem::path& folder, const engine::Voice& voice,
                  const PipelineBenchOptions& o) {
  using Clock = std::chrono::steady_clock;
  const acoustic::AcousticModelFiles files = acoustic::load_acoustic_files(folder / "acoustic");
  acoustic::AcousticLossSettings settings;
  settings.symbol_timings = files.symbols->timings();
  const auto& weights = *voice.vocoder().weights;
  std::vector<std::string> names;
  std::vector<std::vector<double>> wall, cpu;
  std::size_t frames = 0, first_window = 0, tokens = 0;
  for (int run = 0; run < o.phases; ++run) {
    std::vector<double> w, c;
    auto t0 = Clock::now();
    double c0 = thread_cpu_seconds();
    auto lap = [&](const std::string& name, double seconds = -1.0) {
      const auto now = Clock::now();
      const double cn = thread_cpu_seconds();
      if (run == 0) names.push_back(name);
      w.push_back(seconds >= 0 ? seconds : std::chrono::duration<double>(now - t0).count());
      c.push_back(seconds >= 0 ? -1.0 : cn - c0);
      t0 = now;
      c0 = cn;
    };
    frontend::SentenceSplitter splitter;
    std::string first;
    splitter.feed(o.text, [&](std::string s) {
      if (first.empty()) first = std::move(s);
    });
    splitter.finish([&](std::string s) {
      if (first.empty()) first = std::move(s);
    });
    lap("sentence_split_all");
    const frontend::PhonemizedSentence sentence = voice.text().process_sentence(first);
    lap("normalise_phonemise_first");
    acoustic::AcousticPhaseTimes times;
    acoustic::AcousticPass pass(*files.weights, settings);
    pass.set_phase_times(&times);
    std::vector<int> durations;
    const int sentence_frames = pass.begin_synthesis(
        std::vector<int32_t>(sentence.ids.begin(), sentence.ids.end()), 1.0f, 0.0f, durations);
    // As the pipeline does: the first window, the first audio, then the rest of the sentence.
    const std::vector<acoustic::FrameWindow> windows =
        acoustic::synthesis_windows(sentence_frames, pass.decoder_context_frames());
    kernels::Matrix first_frames, rest;
    pass.decode_frames(windows.front().first, windows.front().count, first_frames);
    lap("acoustic_first_window");
    const acoustic::AcousticPhaseTimes before_first_audio = times;
    frames = static_cast<std::size_t>(sentence_frames);
    first_window = static_cast<std::size_t>(first_frames.cols());
    tokens = sentence.ids.size();
    // The voice's own sampling weights (--weights), as the pipeline samples them.
    vocoder::WaveNetSampler sampler(weights, {o.seed, 1.0f, 1}, voice.samplers().compact_weights());
    sampler.start(first_frames);
    lap("vocoder_start_conditioning");
    std::vector<int32_t> block(std::max<std::size_t>(o.chunk_samples, 256));
    sampler.generate(block.data(), 256);
    lap("vocoder_first_256_samples");
    for (std::size_t k = 1; k < windows.size(); ++k) {
      pass.decode_frames(windows[k].first, windows[k].count, rest);
      sampler.extend(0, rest);
    }
    lap("acoustic_rest_of_sentence");
    sampler.generate(block.data(), o.chunk_samples);
    lap("vocoder_next_chunk_samples");
    for (auto [name, seconds] :
         {std::pair{"acoustic.encoder", before_first_audio.encoder},
          {"acoustic.durations", before_first_audio.durations},
          {"acoustic.variances", before_first_audio.variances},
          {"acoustic.length_regulation_input", before_first_audio.length_regulation},
          {"acoustic.decoder_blocks_first_window", before_first_audio.decoder},
          {"acoustic.output_first_window", before_first_audio.output}})
      lap(name, seconds);
    wall.push_back(w);
    cpu.push_back(c);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  nlohmann::json phases = nlohmann::json::object();
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::vector<double> ws, cs;
    for (std::size_t r = 1; r < wall.size(); ++r) {
      ws.push_back(wall[r][k]);
      cs.push_back(cpu[r][k]);
    }
    nlohmann::json entry = {{"first_run_ms", 1e3 * wall[0][k]}};
    if (cpu[0][k] >= 0) entry["first_run_cpu_ms"] = 1e3 * cpu[0][k];
    if (!ws.empty()) entry["median_ms"] = 1e3 * median(ws);
    if (!cs.empty() && cpu[0][k] >= 0) entry["median_cpu_ms"] = 1e3 * median(cs);
    phases[names[k]] = entry;
  }
  nlohmann::json line = {{"bench", "pipeline_phases"},
                         {"voice", voice.info().name},
                         {"runs", o.phases},
                         {"first_sentence_tokens", tokens},
                         {"first_sentence_frames", frames},
                         {"first_window_frames", first_window},
                         {"chunk_samples", o.chunk_samples},
                         {"gemm_kernels", gemm_kernels_note()},
                         {"cpu_isa", kernels::cpu_kernel_isa()},
                         {"weights", kernels::weight_precision_name(o.weights)},
                         {"phases", phases}};
  std::cout << line.dump() << "\n";
}

int bench_pipeline(const PipelineBenchOptions& o) {
  namespace fs = std::filesystem;
  const BenchVoice bench_voice(o.voice, o.size);
  const fs::path& folder = bench_voice.folder();

  const auto voice = engine::Voice::load(folder, o.weights);
  if (o.phases > 0) {
    bench_phases(folder, *voice, o);
    return kExitOk;
  }
  engine::SynthesisOptions options;
  options.threads = o.threads;
  options.seed = o.seed;
  options.chunk_samples = o.chunk_samples;
  options.pitch_semitones = o.pitch_semitones;

  using Clock = std::chrono::steady_clock;
  engine::SynthesisStream stream(voice);
  const auto start = Clock::now();
  stream.start(o.text, options);
  engine::AudioChunk chunk;
  double first_audio = -1.0;
  std::size_t samples = 0, chunks = 0;
  int sentences = 0;
  while (stream.next(chunk)) {
    if (first_audio < 0) first_audio = std::chrono::duration<double>(Clock::now() - start).count();
    samples += chunk.samples.size();
    ++chunks;
    if (chunk.sentence) sentences = std::max(sentences, chunk.sentence->index + 1);
  }
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  const double audio_seconds = static_cast<double>(samples) / voice->sample_rate();
  const auto& w = voice->vocoder().weights->config();
  nlohmann::json line = {
      {"bench", "pipeline"},
      {"voice", voice->info().name},
      {"layers", w.layers},
      {"residual", w.residual_channels},
      {"skip", w.skip_channels},
      {"sample_rate", voice->sample_rate()},
      {"threads", o.threads},
      {"weights", kernels::weight_precision_name(o.weights)},
      {"text_chars", o.text.size()},
      {"sentences", sentences},
      {"chunks", chunks},
      {"chunk_samples", o.chunk_samples},
      {"pitch_semitones", o.pitch_semitones},
      {"audio_seconds", audio_seconds},
      {"wall_seconds", wall},
      {"time_to_first_audio_seconds", first_audio},
      // Standard RTF: processing time per second of audio (< 1 is faster than real time).
      {"real_time_factor", audio_seconds > 0 ? wall / audio_seconds : 0.0},
      {"times_real_time", wall > 0 ? audio_seconds / wall : 0.0},
      {"gemm_kernels", gemm_kernels_note()},
      {"cpu_isa", kernels::cpu_kernel_isa()},
  };
  std::cout << line.dump() << "\n";
  return kExitOk;
}

}  // namespace

void register_bench_pipeline(CLI::App& bench, int& exit_code) {
  auto o = std::make_shared<PipelineBenchOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "pipeline", "Time to first audio and end-to-end real-time factor of text-to-speech");
  cmd->add_option("--voice", o->voice, "Voice name or folder (default: a random voice)");
  cmd->add_option("--size", o->size, "Size of the random voice: tiny or full")
      ->check(CLI::IsMember({"tiny", "full"}))
      ->capture_default_str();
  cmd->add_option("--text", o->text, "Text to speak (default: a five-sentence paragraph)");
  cmd->add_option("--threads", o->threads, "Vocoder threads")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  add_weights_option(*cmd, o->weights);
  cmd->add_option("--seed", o->seed, "Sampling seed")
      ->capture_default_str()
      ->check(seed_validator());
  cmd->add_option("--chunk", o->chunk_samples, "Samples per chunk")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--pitch", o->pitch_semitones, "Pitch shift in semitones (as tts say --pitch)")
      ->check(CLI::Range(-24.0f, 24.0f))
      ->capture_default_str();
  cmd->add_option("--phases", o->phases,
                  "Instead: time each stage before the first audio of the first sentence, N times "
                  "on one thread")
      ->check(CLI::Range(1, 1000));
  cmd->callback([o, &exit_code] {
    try {
      exit_code = bench_pipeline(*o);
    } catch (const std::exception& e) {
      std::cerr << "tts bench pipeline: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
  });
}

}  // namespace tts::cli
