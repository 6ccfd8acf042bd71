// Counters of `tts serve`, shown at GET /metrics in Prometheus' text format (version 0.0.4).
// Thread-safe: every request thread records into one Metrics.
#pragma once

#include <map>
#include <mutex>
#include <string>

namespace tts::serve {

class Admission;

class Metrics {
 public:
  // `protocol` is "http" or "wyoming"; `reason` a short label such as "bad_request", "busy",
  // "cancelled" or "synthesis".
  void request(const std::string& protocol);
  void error(const std::string& protocol, const std::string& reason);
  // One finished synthesis: seconds of audio it made, wall-clock seconds it took from start to
  // its last chunk, and the seconds to its first chunk.
  void synthesis(double audio_seconds, double wall_seconds, double first_audio_seconds);

  // The exposition text, with the admission's gauges (running, waiting).
  std::string prometheus(const Admission& admission) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, double> requests_;
  std::map<std::pair<std::string, std::string>, double> errors_;
  double syntheses_ = 0, audio_seconds_ = 0, wall_seconds_ = 0, first_audio_seconds_ = 0;
};

}  // namespace tts::serve
