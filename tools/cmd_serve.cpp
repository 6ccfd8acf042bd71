// `tts serve`: the engine over the network, with its voices loaded once and shared by every
// request. HTTP speaks OpenAI's speech API (http_server.h), Wyoming speaks to Home Assistant
// (wyoming_server.h); both share one bound on running and waiting syntheses (admission.h).
// SIGTERM or SIGINT stops accepting, lets running streams finish until --drain-timeout, cancels
// the rest and exits 0. docs/serve.md has the whole story.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "commands.h"
#include "device_options.h"
#include "serve_voices.h"
#include "tts/engine/stream_batch.h"
#include "tts/engine/voice.h"
#include "tts/kernels/device.h"
#include "tts/serve/http_server.h"
#include "tts/serve/speech_service.h"
#include "tts/serve/wyoming_server.h"
#include "weights_option.h"

namespace tts::cli {

namespace {

int g_signal_pipe[2] = {-1, -1};

constexpr char kStopByte = 1, kReloadByte = 2;

void on_stop_signal(int) {
  char byte = kStopByte;
  // Async-signal-safe; a full pipe means a stop is already pending.
  [[maybe_unused]] auto n = ::write(g_signal_pipe[1], &byte, 1);
}

void on_reload_signal(int) {
  char byte = kReloadByte;
  [[maybe_unused]] auto n = ::write(g_signal_pipe[1], &byte, 1);
}

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 5500;
  int wyoming_port = 10200;
  bool no_wyoming = false;
  ServedVoiceChoice voices;  // none named: every voice found
  std::string api_key, api_key_file;
  bool api_key_given = false;  // --api-key was on the command line (even empty)
  int workers = 2, queue = 2, threads = 1;
  std::size_t max_text = 4096, max_body = 64 * 1024;
  double request_timeout = 300, queue_timeout = 10, drain_timeout = 10;
  int max_connections = 512;
  double read_timeout = 10, keep_alive_timeout = 5;
  std::string batch;      // "", a stream count, or "auto"
  int batch_threads = 0;  // 0: every core
  kernels::Device device = kernels::Device::kCpu;
  serve::StudioOptions studio;
  double studio_max_disk_mb = 4096, studio_min_free_mb = 2048;
  std::string studio_create_args;
};

// The streams of the serving batch `o` asks for: its count, or with "auto" the most streams the
// first voice's batch keeps 1.2 × real time on this machine (measured here, a few seconds); 0
// without batching, -1 for a bad value (said on stderr).
int batch_streams(const ServeOptions& o, const engine::Voice& voice) {
  if (o.batch.empty()) return 0;
  if (o.batch != "auto") {
    try {
      std::size_t used = 0;
      const int n = std::stoi(o.batch, &used);
      if (used == o.batch.size() && n >= 1 && n <= 65536) return n;
    } catch (const std::exception&) {
    }
    std::cerr << "tts serve: --batch must be a stream count from 1 to 65536, or auto; not \""
              << o.batch << "\"\n";
    return -1;
  }
  const vocoder::WaveNetWeights& weights = *voice.vocoder().weights;
  const kernels::MelConfig& features = voice.features();
  const kernels::Matrix mel = kernels::Matrix::Constant(
      weights.config().mel_channels, 64, std::log(features.log_floor));  // speed is content-blind
  const int most = o.device == kernels::Device::kCuda ? 4096 : 256;
  const int n = engine::realtime_streams(voice.samplers(), o.device, {0, 1.0f, o.batch_threads},
                                         mel, voice.sample_rate(), 1.2, most);
  std::cerr << "tts serve: --batch auto: " << n << " streams at 1.2x real time each (measured, "
            << kernels::to_string(o.device) << ", " << o.batch_threads << " threads)\n";
  return std::max(n, 1);
}

std::string trimmed(const std::string& s) {
  const char* space = " \t\r\n\f\v";
  auto first = s.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(space) + 1 - first);
}

// The API key, from --api-key, else --api-key-file, else the TTS_API_KEY environment variable
// (both keep it out of the process list); none: serve without one. A source that is given but
// empty (an unset shell variable, an empty file) is an error, never a server without a key.
// Returns kExitOk, or the exit code after saying why on stderr.
int resolve_api_key(ServeOptions& o) {
  if (o.api_key_given && !o.api_key_file.empty()) {
    std::cerr << "tts serve: give --api-key or --api-key-file, not both\n";
    return kExitUsage;
  }
  std::string source;
  if (o.api_key_given) {
    source = "--api-key";
  } else if (!o.api_key_file.empty()) {
    source = "--api-key-file " + o.api_key_file;
    std::ifstream in(o.api_key_file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      std::cerr << "tts serve: cannot read the API key file " << o.api_key_file << "\n";
      return kExitBadInput;
    }
    o.api_key = text.str();
  } else if (const char* env = std::getenv("TTS_API_KEY")) {
    source = "TTS_API_KEY";
    o.api_key = env;
  } else {
    return kExitOk;
  }
  o.api_key = trimmed(o.api_key);
  if (o.api_key.empty()) {
    std::cerr << "tts serve: " << source
              << " gives an empty API key (an unset variable?): give a key, or no key to serve "
                 "without one\n";
    return kExitUsage;
  }
  if (o.api_key.find_first_of(" \t\r\n") != std::string::npos) {
    std::cerr << "tts serve: " << source << ": the API key has white space inside it\n";
    return kExitUsage;
  }
  return kExitOk;
}

// HOST:PORT for a URL: an IPv6 address in brackets, so that the printed URL can be pasted.
std::string url_authority(const std::string& host, int port) {
  bool ipv6 = host.find(':') != std::string::npos && host.front() != '[';
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// A number of seconds that is finite: CLI::Range alone lets NaN through (every comparison with it
// is false), and a NaN timeout would become an undefined duration.
const CLI::Validator kFiniteSeconds(
    [](std::string& text) -> std::string {
      try {
        if (std::isfinite(std::stod(text))) return "";
      } catch (const std::exception&) {
      }
      return "not a finite number of seconds: " + text;
    },
    "SECONDS");

bool is_loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

int run_serve(ServeOptions o) {
  if (int code = resolve_api_key(o); code != kExitOk) return code;
  if (o.batch_threads == 0)
    o.batch_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // A GPU pays only with many streams at once: it batches unless told how many.
  if (o.device == kernels::Device::kCuda && o.batch.empty()) o.batch = "auto";
  const auto warn = [](const std::string& line) {
    std::cerr << "tts serve: warning: " << line << std::endl;
  };
  std::vector<serve::ServedVoice> voices;
  try {
    voices = voices_to_serve(o.voices, warn);
  } catch (const std::invalid_argument& e) {
    std::cerr << "tts serve: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "tts serve: " << e.what() << "\n";
    return kExitBadInput;
  }
  serve::ServiceOptions service_options;
  if (o.device == kernels::Device::kCuda) try {
      kernels::require_device(o.device);
    } catch (const std::exception& e) {
      std::cerr << "tts serve: --device cuda: " << e.what() << "\n";
      return kExitFailure;
    }
  try {
    service_options.batch = batch_streams(o, *voices.front().voice);
  } catch (const std::exception& e) {
    std::cerr << "tts serve: --batch: " << e.what() << "\n";
    return kExitFailure;
  }
  if (service_options.batch < 0) return kExitUsage;
  service_options.batch_threads = o.batch_threads;
  service_options.device = o.device;
  service_options.workers = o.workers;
  service_options.queue = o.queue;
  service_options.threads_per_stream = o.threads;
  service_options.max_text_chars = o.max_text;
  service_options.max_request =
      std::chrono::milliseconds(static_cast<long>(o.request_timeout * 1e3));
  service_options.queue_wait = std::chrono::milliseconds(static_cast<long>(o.queue_timeout * 1e3));
  std::unique_ptr<serve::SpeechService> service;
  try {
    service = std::make_unique<serve::SpeechService>(std::move(voices), service_options);
  } catch (const std::invalid_argument& e) {
    std::cerr << "tts serve: " << e.what() << "\n";
    return kExitUsage;
  }

  serve::HttpOptions http_options;
  http_options.host = o.host;
  http_options.port = o.port;
  http_options.api_key = o.api_key;
  http_options.max_body_bytes = o.max_body;
  if (!o.studio.dir.empty()) {
    http_options.studio = o.studio;
    http_options.studio.tts = std::filesystem::read_symlink("/proc/self/exe");
    http_options.studio.max_disk_bytes = static_cast<std::uint64_t>(o.studio_max_disk_mb * 1048576);
    http_options.studio.min_free_bytes = static_cast<std::uint64_t>(o.studio_min_free_mb * 1048576);
    std::istringstream words(o.studio_create_args);
    for (std::string word; words >> word;) http_options.studio.create_args.push_back(word);
  }
  http_options.max_connections = o.max_connections;
  http_options.read_timeout = std::chrono::milliseconds(static_cast<long>(o.read_timeout * 1e3));
  http_options.keep_alive_timeout =
      std::chrono::milliseconds(static_cast<long>(o.keep_alive_timeout * 1e3));
  std::unique_ptr<serve::HttpServer> http_server;
  std::unique_ptr<serve::WyomingServer> wyoming;
  try {
    http_server = std::make_unique<serve::HttpServer>(*service, http_options);
    http_server->bind();
    if (!o.no_wyoming) {
      serve::WyomingOptions wyoming_options;
      wyoming_options.host = o.host;
      wyoming_options.port = o.wyoming_port;
      wyoming_options.api_key = o.api_key;
      wyoming = std::make_unique<serve::WyomingServer>(*service, wyoming_options);
      wyoming->bind();
    }
  } catch (const std::exception& e) {
    std::cerr << "tts serve: " << e.what() << "\n";
    return kExitFailure;
  }
  if (!is_loopback(o.host) && o.api_key.empty())
    std::cerr << "tts serve: warning: listening on " << o.host
              << " without --api-key: anyone who can reach it can use it\n";

  if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    std::cerr << "tts serve: cannot create the signal pipe\n";
    return kExitFailure;
  }
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  struct sigaction reload {};
  reload.sa_handler = on_reload_signal;
  sigemptyset(&reload.sa_mask);
  sigaction(SIGHUP, &reload, nullptr);
  ::signal(SIGPIPE, SIG_IGN);  // a client that hangs up is an error return, not a signal

  std::thread http_thread([&] { http_server->run(); });
  std::thread wyoming_thread;
  if (wyoming) wyoming_thread = std::thread([&] { wyoming->run(); });
  std::cerr << "tts serve: HTTP on http://" << url_authority(o.host, http_server->port()) << "\n";
  if (wyoming)
    std::cerr << "tts serve: Wyoming on tcp://" << url_authority(o.host, wyoming->port()) << "\n";
  std::cerr << "tts serve: voices:";
  for (const auto& v : service->voices()) std::cerr << " " << v.name;
  if (service_options.batch > 0)
    std::cerr << "; continuous batching, " << service_options.batch << " streams per voice on "
              << kernels::to_string(o.device) << ", queue " << o.queue << std::endl;
  else
    std::cerr << "; " << o.workers << " workers, queue " << o.queue << std::endl;

  // Wait for a stop signal; a reload (SIGHUP) serves the voices found since.
  for (;;) {
    char byte;
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(g_signal_pipe[0], &fds);
    int ready = ::select(g_signal_pipe[0] + 1, &fds, nullptr, nullptr, nullptr);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0 || ::read(g_signal_pipe[0], &byte, 1) != 1) continue;
    if (byte != kReloadByte) break;
    const auto added = voices_found_since(o.voices, service->voices(), warn);
    for (const auto& voice : added) service->add_voice(voice);
    std::cerr << "tts serve: reload: " << added.size() << " voice(s) added";
    for (const auto& voice : added) std::cerr << " " << voice.name;
    std::cerr << std::endl;
  }
  std::cerr << "tts serve: stopping (finishing streams for at most " << o.drain_timeout << " s)"
            << std::endl;
  http_server->set_draining();
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<long>(o.drain_timeout * 1e3));
  bool finished = service->shutdown(deadline);
  http_server->stop();
  if (wyoming) wyoming->stop();
  http_thread.join();
  if (wyoming_thread.joinable()) wyoming_thread.join();
  std::cerr << "tts serve: stopped" << (finished ? "" : " (streams still running were cancelled)")
            << std::endl;
  return kExitOk;
}

}  // namespace

void register_serve(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Serve speech over HTTP (OpenAI's /v1/audio/speech) and the Wyoming protocol");
  cmd->add_option("--host", o->host, "Address to listen on (default 127.0.0.1: this machine only)");
  cmd->add_option("--port", o->port, "HTTP port (0: any free port, printed at start)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--wyoming-port", o->wyoming_port, "Wyoming TCP port (0: any free port)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_flag("--no-wyoming", o->no_wyoming, "Do not serve the Wyoming protocol");
  cmd->add_option("--voice", o->voices.names,
                  "Voice to serve (name or folder; repeat for several; the first is the default). "
                  "Without it every voice found is served, `default` first; SIGHUP adds voices "
                  "found since");
  cmd->add_option("--voices-dir", o->voices.voice_dirs,
                  "Also serve every voice in DIR (a folder of voice folders; repeatable); SIGHUP "
                  "adds those made there since")
      ->check(CLI::ExistingDirectory);
  CLI::Option* api_key =
      cmd->add_option("--api-key", o->api_key,
                      "Require KEY: 'Authorization: Bearer KEY' on every HTTP request but /health, "
                      "\"api_key\": KEY in the data of a Wyoming connection's first event "
                      "(empty: an error; default: --api-key-file, else $TTS_API_KEY, else none)");
  cmd->add_option("--api-key-file", o->api_key_file,
                  "Read the API key from FILE (its white space trimmed), so that it is not in "
                  "the process list");
  cmd->add_option("--workers", o->workers, "Syntheses running at once")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--queue", o->queue, "Requests waiting for a worker before 503")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  add_weights_option(*cmd, o->voices.sampling_weights);
  cmd->add_option("--threads", o->threads, "Vocoder threads per synthesis")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--batch", o->batch,
                  "Continuous batching: each voice's streams sampled together in one batch of N "
                  "streams (N run at once, replacing --workers), or 'auto': as many as this "
                  "machine keeps real time, measured at start");
  cmd->add_option("--batch-threads", o->batch_threads,
                  "CPU threads that step each batch (default: every core)")
      ->check(CLI::Range(1, 256));
  add_device_option(*cmd, o->device, "Where the vocoder samples");
  cmd->add_option("--max-text", o->max_text, "Longest text of a request, in characters")
      ->check(CLI::Range(1, 1 << 24))
      ->capture_default_str();
  cmd->add_option("--max-body", o->max_body, "Largest HTTP request body, in bytes")
      ->check(CLI::Range(1, 1 << 26))
      ->capture_default_str();
  cmd->add_option("--max-connections", o->max_connections,
                  "HTTP connections open at once (beyond: the longest waiting is closed, or 503)")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  cmd->add_option("--read-timeout", o->read_timeout,
                  "Seconds for a whole HTTP request (line, headers, body) to arrive, else 408")
      ->check(kFiniteSeconds)
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  cmd->add_option("--keep-alive-timeout", o->keep_alive_timeout,
                  "Seconds an idle HTTP connection stays open between requests")
      ->check(kFiniteSeconds)
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  cmd->add_option("--request-timeout", o->request_timeout,
                  "Longest synthesis of one request, in seconds")
      ->check(kFiniteSeconds)
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
  cmd->add_option("--queue-timeout", o->queue_timeout,
                  "Longest wait for a worker, in seconds, before 503")
      ->check(kFiniteSeconds)
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  cmd->add_option("--drain-timeout", o->drain_timeout,
                  "On SIGTERM, seconds to let running streams finish before cancelling them")
      ->check(kFiniteSeconds)
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  cmd->add_option("--studio", o->studio.dir,
                  "Turn on the studio: record prompts in the page and make a voice of them; DIR "
                  "keeps the takes (DIR/NAME in the LJSpeech layout) and the voices made");
  cmd->add_option("--studio-prompts", o->studio.prompts,
                  "Folder of the studio's prompts, LANG.txt with one sentence a line (default: "
                  "the installed prompts)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--studio-max-clip", o->studio.max_clip_seconds,
                  "Longest studio take, in seconds")
      ->check(CLI::Range(1.0, 120.0))
      ->capture_default_str();
  cmd->add_option("--studio-max-clips", o->studio.max_clips, "Most takes of one studio voice")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--studio-max-disk", o->studio_max_disk_mb,
                  "Most megabytes the studio's folder may hold (takes refused beyond)")
      ->check(CLI::Range(1.0, 1e9))
      ->capture_default_str();
  cmd->add_option("--studio-min-free", o->studio_min_free_mb,
                  "Megabytes that must be free on the studio's disk to start a voice job")
      ->check(CLI::Range(0.0, 1e12))
      ->capture_default_str();
  cmd->add_option("--studio-min-minutes", o->studio.least_minutes,
                  "Least minutes of takes a voice job accepts (voices create's --min-minutes)")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  cmd->add_option("--studio-create-args", o->studio_create_args,
                  "More arguments for the studio's `tts voices create` job, space-separated (for "
                  "tests and small machines: \"--base DIR --vocoder DIR --steps 20\"; or "
                  "\"--budget 60\")");
  cmd->callback([o, api_key, &exit_code] {
    o->api_key_given = api_key->count() > 0;
    exit_code = run_serve(*o);
  });
}

}  // namespace tts::cli
