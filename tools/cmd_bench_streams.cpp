// `tts bench streams`: do N synthesis streams in one process use N cores? Runs the same paragraph
// on 1, 2, … streams of one shared voice at once (each stream on its own thread, one vocoder thread
// each) and prints one JSON line per count: audio seconds made per wall second, the process's CPU
// seconds per wall second (how many cores were busy), and the throughput relative to one stream.
// A lock that serialises streams shows as a scaling well under N with cores busy well under N.
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "bench_voice.h"
#include "commands.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice.h"
#include "tts/kernels/linear_algebra.h"

namespace tts::cli {

namespace {

constexpr const char* kStreamsParagraph =
    "The quick brown fox jumps over the lazy dog. A journey of a thousand miles begins with a "
    "single step. Speech synthesis turns written text into sound, one sample at a time.";

struct StreamsBenchOptions {
  std::string voice;          // empty: a random voice of `size` in a temporary folder
  std::string size = "full";  // of the random voice
  std::string text = kStreamsParagraph;
  std::string counts = "1,2";  // stream counts to run, one after the other
  int repeats = 2;             // paragraphs per stream (longer runs, steadier figures)
};

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::vector<int> parse_counts(const std::string& text) {
  std::vector<int> counts;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    int n = 0;
    try {
      n = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || n < 1 || n > 256)
      throw std::invalid_argument("--streams: '" + item + "' is not a count from 1 to 256");
    counts.push_back(n);
  }
  if (counts.empty()) throw std::invalid_argument("--streams: no counts given");
  return counts;
}

struct RoundResult {
  double wall = 0, cpu = 0, audio_seconds = 0;
};

// N threads, each synthesising `repeats` paragraphs on its own stream with its own seed; they
// start together so that the wall time measures them side by side.
RoundResult run_round(const std::shared_ptr<const engine::Voice>& voice, const std::string& text,
                      int streams, int repeats) {
  std::vector<std::size_t> samples(streams, 0);
  std::vector<std::exception_ptr> errors(streams);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int s = 0; s < streams; ++s) {
    threads.emplace_back([&, s] {
      try {
        engine::SynthesisStream stream(voice);
        engine::SynthesisOptions options;
        options.threads = 1;
        ++ready;
        while (!go.load()) std::this_thread::yield();
        engine::AudioChunk chunk;
        for (int r = 0; r < repeats; ++r) {
          options.seed = static_cast<std::uint64_t>(s * 1000 + r);
          stream.start(text, options);
          while (stream.next(chunk)) samples[s] += chunk.samples.size();
        }
      } catch (...) {
        errors[s] = std::current_exception();
      }
    });
  }
  while (ready.load() < streams) std::this_thread::yield();
  const double cpu_start = process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  go = true;
  for (auto& t : threads) t.join();
  RoundResult r;
  r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.cpu = process_cpu_seconds() - cpu_start;
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (std::size_t n : samples) r.audio_seconds += static_cast<double>(n) / voice->sample_rate();
  return r;
}

int bench_streams(const StreamsBenchOptions& o) {
  namespace fs = std::filesystem;
  const std::vector<int> counts = parse_counts(o.counts);
  const BenchVoice bench_voice(o.voice, o.size);
  const fs::path& folder = bench_voice.folder();
  const auto voice = engine::Voice::load(folder);

  run_round(voice, o.text, 1, 1);  // warm-up: first-touch of the weights, espeak-ng's data
  double single_throughput = 0;
  for (int n : counts) {
    const RoundResult r = run_round(voice, o.text, n, o.repeats);
    const double throughput = r.wall > 0 ? r.audio_seconds / r.wall : 0.0;
    if (n == counts.front() && single_throughput == 0) single_throughput = throughput / n;
    nlohmann::json line = {
        {"bench", "streams"},
        {"voice", voice->info().name},
        {"streams", n},
        {"hardware_threads", std::thread::hardware_concurrency()},
        {"cpu_isa", kernels::cpu_kernel_isa()},
        {"audio_seconds", r.audio_seconds},
        {"wall_seconds", r.wall},
        {"audio_seconds_per_second", throughput},
        // CPU seconds per wall second: the cores the process kept busy.
        {"busy_cores", r.wall > 0 ? r.cpu / r.wall : 0.0},
        {"cpu_seconds_per_audio_second", r.audio_seconds > 0 ? r.cpu / r.audio_seconds : 0.0},
        // Throughput against the first count's per-stream figure: N for perfect scaling.
        {"scaling", single_throughput > 0 ? throughput / single_throughput : 0.0},
    };
    std::cout << line.dump() << std::endl;
  }
  return kExitOk;
}

}  // namespace

void register_bench_streams(CLI::App& bench, int& exit_code) {
  auto o = std::make_shared<StreamsBenchOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "streams", "Throughput of N synthesis streams at once in one process against one stream");
  cmd->add_option("--voice", o->voice, "Voice name or folder (default: a random voice)");
  cmd->add_option("--size", o->size, "Size of the random voice: tiny or full")
      ->check(CLI::IsMember({"tiny", "full"}))
      ->capture_default_str();
  cmd->add_option("--text", o->text, "Text each stream speaks (default: three sentences)");
  cmd->add_option("--streams", o->counts, "Stream counts to compare, e.g. 1,2,4")
      ->capture_default_str();
  cmd->add_option("--repeats", o->repeats, "Times each stream speaks the text")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->callback([o, &exit_code] {
    try {
      exit_code = bench_streams(*o);
    } catch (const std::invalid_argument& e) {
      std::cerr << "tts bench streams: " << e.what() << "\n";
      exit_code = kExitUsage;
    } catch (const std::exception& e) {
      std::cerr << "tts bench streams: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
  });
}

}  // namespace tts::cli
