#include "output_files.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <system_error>
#include <thread>
#include <utility>

namespace tts::cli {

namespace fs = std::filesystem;

namespace {
fs::path resolved(const std::string& path) {
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  if (error) return path;
  fs::path canonical = fs::weakly_canonical(absolute, error);
  return error ? absolute.lexically_normal() : canonical;
}

int signal_pipe = -1;  // written by forward_signal, read by the watcher thread

void forward_signal(int signal) {
  const int saved = errno;
  const auto byte = static_cast<unsigned char>(signal);
  [[maybe_unused]] const auto written = ::write(signal_pipe, &byte, 1);
  errno = saved;
}

// This process's temporaries of `output` (NAME.tmp-PID-N in its folder).
void remove_temporaries_of(const fs::path& output) {
  const std::string prefix =
      output.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-";
  fs::path folder = output.parent_path();
  if (folder.empty()) folder = ".";
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (it->path().filename().string().rfind(prefix, 0) != 0) continue;
    std::error_code ignored;
    fs::remove(it->path(), ignored);
  }
}
}  // namespace

std::optional<std::string> output_named_twice(
    const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (outputs[i].second.empty() || outputs[j].second.empty()) continue;
      if (resolved(outputs[i].second) == resolved(outputs[j].second))
        return outputs[i].first + " " + outputs[i].second + " and " + outputs[j].first + " " +
               outputs[j].second + " are the same file: one would overwrite the other";
    }
  return std::nullopt;
}

void remove_temporaries_on_signal(std::vector<fs::path> outputs) {
  std::vector<fs::path> named;
  for (const fs::path& output : outputs)  // resolved now: a later chdir changes nothing
    if (!output.empty()) named.push_back(resolved(output.string()));
  int fds[2];
  if (::pipe(fds) != 0) return;  // best effort: without it a signal ends the command as before
  signal_pipe = fds[1];
  // The handler only writes the signal's number to the pipe (all a handler may safely do, on
  // whichever thread it runs); the watcher thread does the rest.
  std::thread([outputs = std::move(named), fd = fds[0]] {
    unsigned char signal = 0;
    while (::read(fd, &signal, 1) != 1)
      if (errno != EINTR) return;
    for (const fs::path& output : outputs) remove_temporaries_of(output);
    std::signal(signal, SIG_DFL);
    std::raise(signal);  // the default action: the process ends, its status naming the signal
  }).detach();
  for (int signal : {SIGINT, SIGTERM}) {
    struct sigaction action {};
    if (sigaction(signal, nullptr, &action) != 0 || action.sa_handler == SIG_IGN)
      continue;  // ignored (a background job's SIGINT) stays ignored
    action.sa_handler = forward_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(signal, &action, nullptr);
  }
}

}  // namespace tts::cli
