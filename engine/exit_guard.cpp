#include "exit_guard.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>

#include "tts/frontend/phonemizer.h"

namespace tts::engine {

namespace {

// Leaked on purpose: static objects are destroyed during exit, and the handler (and late
// unregistrations from threads it joins) must still find these.
std::mutex& registry_mutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
std::set<StoppableAtExit*>& registry() {
  static auto* runs = new std::set<StoppableAtExit*>;
  return *runs;
}
std::atomic<bool> g_exiting{false};

void stop_running_syntheses() {
  g_exiting = true;
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (StoppableAtExit* run : registry()) run->stop_at_exit();
}

void install_handler() {
  // espeak-ng's own exit handler is registered when it initialises; ours, registered after it,
  // runs before it (atexit handlers run in reverse order).
  frontend::initialize_espeak_now();
  std::atexit(stop_running_syntheses);
}

}  // namespace

void register_at_exit(StoppableAtExit* run) {
  static std::once_flag once;
  std::call_once(once, install_handler);
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().insert(run);
}

void unregister_at_exit(StoppableAtExit* run) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().erase(run);
}

bool process_exiting() { return g_exiting; }

}  // namespace tts::engine
