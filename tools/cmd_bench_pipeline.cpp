// `tts bench pipeline`: time to first audio and end-to-end real-time factor of the streaming
// pipeline (text → phonemes → mel → WaveNet → chunks) for a paragraph, as one JSON line.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "commands.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_random.h"

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
  std::uint64_t seed = 0;
  std::size_t chunk_samples = 2048;
};

int bench_pipeline(const PipelineBenchOptions& o) {
  namespace fs = std::filesystem;
  fs::path temporary;
  fs::path folder;
  if (o.voice.empty()) {
    std::random_device rd;
    temporary = fs::temp_directory_path() / ("tts-bench-voice-" + std::to_string(rd()));
    engine::RandomVoiceOptions random;
    random.size = o.size;
    engine::create_random_voice(temporary, random);
    folder = temporary;
  } else {
    folder = engine::resolve_voice(o.voice);
  }
  struct Cleanup {
    fs::path path;
    ~Cleanup() {
      std::error_code ec;
      if (!path.empty()) fs::remove_all(path, ec);
    }
  } cleanup{temporary};

  const auto voice = engine::Voice::load(folder);
  engine::SynthesisOptions options;
  options.threads = o.threads;
  options.seed = o.seed;
  options.chunk_samples = o.chunk_samples;

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
      {"text_chars", o.text.size()},
      {"sentences", sentences},
      {"chunks", chunks},
      {"chunk_samples", o.chunk_samples},
      {"audio_seconds", audio_seconds},
      {"wall_seconds", wall},
      {"time_to_first_audio_seconds", first_audio},
      // Standard RTF: processing time per second of audio (< 1 is faster than real time).
      {"real_time_factor", audio_seconds > 0 ? wall / audio_seconds : 0.0},
      {"times_real_time", wall > 0 ? audio_seconds / wall : 0.0},
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
  cmd->add_option("--threads", o->threads, "Vocoder threads")->check(CLI::Range(1, 256));
  cmd->add_option("--seed", o->seed, "Sampling seed");
  cmd->add_option("--chunk", o->chunk_samples, "Samples per chunk")->check(CLI::Range(1, 1 << 20));
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
