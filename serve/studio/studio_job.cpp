#include "studio_job.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace tts::serve {

using nlohmann::json;

StudioJob::StudioJob(std::string voice, const std::filesystem::path& program,
                     const std::vector<std::string>& args, const std::filesystem::path& log,
                     Finished finished)
    : voice_(std::move(voice)),
      finished_(std::move(finished)),
      started_(std::chrono::steady_clock::now()) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot make a pipe for the voice job: ") +
                             std::strerror(errno));
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&files, pipe_fds[1], 1);
  posix_spawn_file_actions_addopen(&files, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A group of its own (cancel signals it whole), default signal handling (the server ignores
  // SIGPIPE and catches SIGTERM) and no blocked signals.
  sigset_t defaults, none;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGINT);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::vector<std::string> argv_strings{program.string()};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int spawned = ::posix_spawn(&pid_, program.c_str(), &files, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    throw std::runtime_error("cannot start " + program.string() + ": " + std::strerror(spawned));
  }
  state_ = {{"voice", voice_}, {"state", "running"}, {"stage", "starting"},    {"stage_index", 0},
            {"stages", 9},     {"fraction", 0.0},    {"minutes_left", nullptr}};
  reader_ = std::thread([this, fd = pipe_fds[0]] { read_progress(fd); });
}

StudioJob::~StudioJob() {
  cancel();
  if (reader_.joinable()) reader_.join();
}

bool StudioJob::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_["state"] == "running";
}

json StudioJob::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  json s = state_;
  s["elapsed_s"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return s;
}

void StudioJob::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_["state"] != "running" || cancelled_) return;
  cancelled_ = true;
  ::kill(-pid_, SIGTERM);  // the child leads its group (POSIX_SPAWN_SETPGROUP with 0)
}

void StudioJob::on_event(const json& e) {
  const std::string kind = e.value("event", "");
  std::lock_guard<std::mutex> lock(mutex_);
  if (kind == "stage") {
    state_["stage"] = e.value("stage", "");
    state_["what"] = e.value("what", "");
    state_["stage_index"] = e.value("index", 0);
    state_["stages"] = e.value("stages", 9);
  } else if (kind == "training") {
    state_["fraction"] = e.value("fraction", 0.0);
    state_["step"] = e.value("step", 0);
    state_["steps"] = e.value("steps", 0);
    state_["minutes_left"] = e.value("minutes_left", 0.0);
  } else if (kind == "line") {
    state_["line"] = e.value("text", "");
  } else if (kind == "done") {
    state_["result"] = e;
  } else if (kind == "error") {
    last_error_ = e.value("message", "");
  }
}

void StudioJob::read_progress(int fd) {
  std::string pending;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t end; (end = pending.find('\n')) != std::string::npos;) {
      const std::string line = pending.substr(0, end);
      pending.erase(0, end + 1);
      const json event = json::parse(line, nullptr, false);
      if (event.is_object()) on_event(event);
    }
  }
  ::close(fd);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  json result;
  bool cancelled;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    result = state_.value("result", json());
    cancelled = cancelled_;
  }
  std::string outcome = "failed", message;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && result.is_object()) {
    try {
      finished_(result);
      outcome = "done";
    } catch (const std::exception& e) {
      message = std::string("the voice was made but cannot be served: ") + e.what();
    }
  } else if (cancelled) {
    outcome = "cancelled";
    message = "cancelled; Create again resumes where it stopped";
  } else {
    std::lock_guard<std::mutex> lock(mutex_);
    message = !last_error_.empty() ? last_error_
              : WIFSIGNALED(status)
                  ? "the voice job was killed by signal " + std::to_string(WTERMSIG(status))
                  : "the voice job exited with status " + std::to_string(WEXITSTATUS(status));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  state_["state"] = outcome;
  if (!message.empty()) state_["message"] = message;
  if (outcome == "done") {
    state_["fraction"] = 1.0;
    state_["minutes_left"] = 0.0;
  }
}

}  // namespace tts::serve
