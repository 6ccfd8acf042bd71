// The state of one sd_tts module process: the loaded voices (loaded once, kept across messages),
// the settings Speech Dispatcher sent, and the synthesis worker thread that streams each message
// to the server as 705 AUDIO events with its 700 INDEX MARK events in between, while the main
// thread keeps reading commands (so STOP and PAUSE are seen at once).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "protocol.h"
#include "speech_text.h"
#include "tts/engine/pipeline.h"
#include "tts/engine/voice.h"

namespace tts::speechd {

// Whole messages onto one file descriptor, one writer at a time.
class Output {
 public:
  explicit Output(int fd) : fd_(fd) {}
  void write(std::string_view message);  // returns when all is written (or the fd is gone)
  std::mutex& mutex() { return mutex_; }
  void write_locked(std::string_view message);  // with mutex() held
  bool broken() const { return broken_; }

 private:
  int fd_;
  std::mutex mutex_;
  std::atomic<bool> broken_{false};
};

struct ModuleConfig {
  std::string voice = "default";  // name on the voice search path, or a folder
  int threads = 1;
  kernels::Device device = kernels::Device::kCpu;
  float sentence_silence = 0.2f;
  std::size_t chunk_samples = 1024;  // 64 ms at 16 kHz: the granularity of STOP and of the audio
  std::vector<std::string> warnings;
};
// Reads the config file named on the command line (a missing file gives the defaults, with a
// warning). Keys: TtsVoice, TtsThreads, TtsDevice (cpu|cuda), TtsSentenceSilence,
// TtsChunkSamples.
ModuleConfig read_module_config(const std::filesystem::path& path);

class Session {
 public:
  Session(ModuleConfig config, Output& out);
  ~Session();  // stops and joins the worker
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // INIT: finds the installed voices and loads the configured one. False with the reason when
  // it cannot.
  bool init(std::string& message);

  // Each returns the reply to write (without "\n").
  std::string set(const std::vector<std::pair<std::string, std::string>>& settings);
  std::string audio(const std::vector<std::pair<std::string, std::string>>& settings);
  std::string loglevel(const std::vector<std::pair<std::string, std::string>>& settings);
  std::string debug(bool on, const std::string& file);
  std::string list_voices() const;  // the whole multi-line reply, with its "\n"s

  // SPEAK, CHAR, KEY, SOUND_ICON: writes 200 OK SPEAKING and hands the message to the worker,
  // which writes 701 BEGIN, the audio and marks, and 702 END.
  void speak(const Request& request);
  // Writes 703 STOP at once (when something is being spoken) and cancels the synthesis.
  void stop();
  // Speech goes on to the next Speech Dispatcher mark (__spd_*), then stops with 704 PAUSE.
  void pause();
  // QUIT or end of input: stops and joins the worker.
  void shutdown();

 private:
  struct Job {
    std::uint64_t id = 0;
    Request::Kind kind = Request::Kind::kSpeak;
    std::string ssml;  // or the icon name
    std::string voice;
    engine::SynthesisOptions options;
  };
  void worker();
  void run(const Job& job);
  // Writes `message` for job `id` unless that job has already ended (STOP, PAUSE or END).
  // `final` ends the job. Returns false when the job had already ended.
  bool emit(std::uint64_t id, std::string_view message, bool final = false);
  std::shared_ptr<const engine::Voice> voice(const std::string& name);
  void log(const std::string& message);  // stderr and the DEBUG file, control characters escaped

  ModuleConfig config_;
  Output& out_;
  std::vector<InstalledVoice> installed_;
  std::map<std::string, std::filesystem::path> voice_folders_;  // name → folder
  std::map<std::string, std::shared_ptr<const engine::Voice>> loaded_;
  std::string default_voice_;

  // Settings as Speech Dispatcher last sent them.
  int rate_ = 0, pitch_ = 0, volume_ = 100;
  Punctuation punctuation_ = Punctuation::kNone;
  bool spelling_ = false;
  std::string language_, synthesis_voice_;

  // The worker's queue (at most one message: a new one replaces one not yet started).
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Job> queued_;
  bool quit_ = false;
  std::uint64_t next_id_ = 1;
  // The job being spoken (0: none) and whether it has ended; guarded by out_.mutex().
  std::uint64_t active_ = 0;
  bool active_ended_ = true;
  std::atomic<bool> pause_requested_{false};
  std::unique_ptr<engine::SynthesisStream> stream_;  // the worker's; cancel() from anywhere
  std::mutex stream_mutex_;                          // guards stream_ replacement
  std::thread thread_;
  std::mutex log_mutex_;
  std::FILE* debug_ = nullptr;
};

}  // namespace tts::speechd
