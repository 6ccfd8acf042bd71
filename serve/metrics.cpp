#include "tts/serve/metrics.h"

#include <sstream>

#include "tts/serve/admission.h"

namespace tts::serve {

void Metrics::request(const std::string& protocol) {
  std::lock_guard<std::mutex> lock(mutex_);
  requests_[protocol] += 1;
}

void Metrics::error(const std::string& protocol, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  errors_[{protocol, reason}] += 1;
}

void Metrics::synthesis(double audio_seconds, double wall_seconds, double first_audio_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  syntheses_ += 1;
  audio_seconds_ += audio_seconds;
  wall_seconds_ += wall_seconds;
  first_audio_seconds_ += first_audio_seconds;
}

std::string Metrics::prometheus(const Admission& admission) const {
  std::ostringstream out;
  out.precision(10);
  std::lock_guard<std::mutex> lock(mutex_);
  out << "# HELP tts_requests_total Speech requests received.\n"
         "# TYPE tts_requests_total counter\n";
  for (const auto& [protocol, n] : requests_)
    out << "tts_requests_total{protocol=\"" << protocol << "\"} " << n << "\n";
  out << "# HELP tts_request_errors_total Requests that failed or were refused, by reason.\n"
         "# TYPE tts_request_errors_total counter\n";
  for (const auto& [key, n] : errors_)
    out << "tts_request_errors_total{protocol=\"" << key.first << "\",reason=\"" << key.second
        << "\"} " << n << "\n";
  out << "# HELP tts_syntheses_total Syntheses that ran to their end.\n"
         "# TYPE tts_syntheses_total counter\n"
      << "tts_syntheses_total " << syntheses_ << "\n"
      << "# HELP tts_audio_seconds_total Seconds of audio sent.\n"
         "# TYPE tts_audio_seconds_total counter\n"
      << "tts_audio_seconds_total " << audio_seconds_ << "\n"
      << "# HELP tts_synthesis_seconds_total Wall-clock seconds spent making that audio.\n"
         "# TYPE tts_synthesis_seconds_total counter\n"
      << "tts_synthesis_seconds_total " << wall_seconds_ << "\n"
      << "# HELP tts_real_time_factor Synthesis seconds per audio second, over all syntheses.\n"
         "# TYPE tts_real_time_factor gauge\n"
      << "tts_real_time_factor " << (audio_seconds_ > 0 ? wall_seconds_ / audio_seconds_ : 0)
      << "\n"
      << "# HELP tts_first_audio_seconds Seconds from a request's start to its first audio.\n"
         "# TYPE tts_first_audio_seconds summary\n"
      << "tts_first_audio_seconds_sum " << first_audio_seconds_ << "\n"
      << "tts_first_audio_seconds_count " << syntheses_ << "\n"
      << "# HELP tts_syntheses_running Syntheses running now.\n"
         "# TYPE tts_syntheses_running gauge\n"
      << "tts_syntheses_running " << admission.running() << "\n"
      << "# HELP tts_queue_depth Requests waiting for a synthesis worker.\n"
         "# TYPE tts_queue_depth gauge\n"
      << "tts_queue_depth " << admission.waiting() << "\n";
  return out.str();
}

}  // namespace tts::serve
