// The studio's voice job: `tts voices create … --progress-json` as a child process of the server
// (the server does not link the trainer), in a process group of its own so that cancelling it
// stops everything it started. A thread reads its progress lines from its stdout; its stderr goes
// to a log file. Internal to tts_serve.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace tts::serve {

class StudioJob {
 public:
  // Called on the job's thread with the "done" event once the child exits 0; what it throws
  // fails the job with its message (the voice could not be served).
  using Finished = std::function<void(const nlohmann::json& done)>;

  // Starts `program args…`; throws std::runtime_error when it cannot.
  StudioJob(std::string voice, const std::filesystem::path& program,
            const std::vector<std::string>& args, const std::filesystem::path& log,
            Finished finished);
  ~StudioJob();  // cancels the child if it runs, and waits for it
  StudioJob(const StudioJob&) = delete;
  StudioJob& operator=(const StudioJob&) = delete;

  // {"voice", "state": running|done|failed|cancelled, "stage", "what", "stage_index", "stages",
  //  "fraction" (of training), "minutes_left", "elapsed_s", "message", "result" (the done event)}
  nlohmann::json state() const;
  bool running() const;
  // SIGTERM to the child's process group; the work folder keeps what was finished, so the next
  // job on the same voice resumes.
  void cancel();

 private:
  void read_progress(int fd);
  void on_event(const nlohmann::json& event);

  std::string voice_;
  Finished finished_;
  pid_t pid_ = -1;
  mutable std::mutex mutex_;
  nlohmann::json state_;
  bool cancelled_ = false;
  std::string last_error_;
  std::chrono::steady_clock::time_point started_;
  std::thread reader_;
};

}  // namespace tts::serve
