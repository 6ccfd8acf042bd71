// What every `tts serve` protocol shares: the voices, loaded once and shared by every request;
// admission (a bounded number of syntheses running and waiting); the limits on a request; the
// metrics. HTTP (http_server.h) and Wyoming (wyoming_server.h) turn their requests into a
// SpeechRequest, call start(), and pull the job's chunks onto their connection.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "tts/engine/pipeline.h"
#include "tts/engine/stream_batch.h"
#include "tts/engine/voice.h"
#include "tts/serve/admission.h"
#include "tts/serve/metrics.h"
#include "tts/serve/speech_request.h"

namespace tts::serve {

struct ServedVoice {
  std::string name;  // what requests call it
  std::shared_ptr<const engine::Voice> voice;
};

struct ServiceOptions {
  int workers = 2;                    // syntheses running at once
  int queue = 2;                      // requests waiting for a worker beyond those
  std::size_t max_text_chars = 4096;  // Unicode code points of a request's text (OpenAI's limit)
  std::chrono::milliseconds queue_wait{10'000};    // longest wait for a worker before 503
  std::chrono::milliseconds max_request{300'000};  // longest synthesis before it is cut off
  int threads_per_stream = 1;                      // vocoder threads of each synthesis
  // Continuous batching (engine/stream_batch.h): when > 0, each voice's syntheses are sampled as
  // members of one serving batch of this many streams on `device`, stepped by `batch_threads`
  // threads (on the CPU), and this many run at once (it replaces `workers`); 0: each synthesis has
  // a sampler of its own.
  int batch = 0;
  int batch_threads = 1;
  kernels::Device device = kernels::Device::kCpu;
  void validate() const;  // throws std::invalid_argument naming the field
};

class SpeechService;

// One running synthesis. Pull its chunks with next() (as SynthesisStream::next, which throws
// engine::SynthesisInputError for text it cannot say and SynthesisCancelled after cancel()).
// Holds its worker until destroyed.
class SpeechJob {
 public:
  ~SpeechJob();
  SpeechJob(const SpeechJob&) = delete;
  SpeechJob& operator=(const SpeechJob&) = delete;

  bool next(engine::AudioChunk& chunk);
  void cancel();  // from any thread
  int sample_rate() const { return stream_.voice().sample_rate(); }
  // True once the request has run past ServiceOptions::max_request; next() then cancels.
  bool expired() const;

 private:
  friend class SpeechService;
  SpeechJob(SpeechService& service, std::shared_ptr<const engine::Voice> voice,
            std::unique_ptr<Admission::Ticket> ticket, std::string protocol);
  SpeechService& service_;
  std::unique_ptr<Admission::Ticket> ticket_;
  engine::SynthesisStream stream_;
  std::string protocol_;
  std::chrono::steady_clock::time_point started_, first_audio_{}, deadline_;
  std::size_t samples_ = 0;
  bool finished_ = false;
};

class SpeechService {
 public:
  // Throws std::invalid_argument for bad options or no voices.
  SpeechService(std::vector<ServedVoice> voices, ServiceOptions options);

  // The voice a request names: a served voice's name; empty, or one of OpenAI's own voice names
  // ("alloy", "nova", …, which clients send by default), for the first served voice. Throws
  // RequestError listing the served voices.
  ServedVoice voice(const std::string& name) const;
  // The voice a request names, as voice(name); when it names none but gives a language, the first
  // voice that speaks it (any of VoiceInfo::languages, so a bilingual voice for either), else its
  // primary subtag ("en" or "en-GB" choose an "en-US" voice), else the first served voice, as
  // piper chooses: engine::voice_for_language. Tags compare as Home Assistant and piper write them
  // ("en_US" is "en-US"). Wyoming's requests carry a language, OpenAI's only as our "language".
  ServedVoice voice(const std::string& name, const std::string& language) const;
  // The voices served now (a copy: add_voice may change the list while it is read).
  std::vector<ServedVoice> voices() const;
  // Serves `voice` from now on, beside the others (replacing one of the same name), with its own
  // serving batch when batching; safe while requests are in flight (they keep the voice they
  // started with). Throws as make_serving_batch.
  void add_voice(ServedVoice voice);
  const ServiceOptions& options() const { return options_; }

  // Checks the request (text length, options), takes a place and waits for a worker, and starts
  // the synthesis. Throws RequestError or BusyError; records both in the metrics under `protocol`.
  std::unique_ptr<SpeechJob> start(const SpeechRequest& request, const std::string& protocol);

  // Refuses new requests, lets the running ones finish until `deadline`, then cancels the rest.
  // Returns whether they all finished in time.
  bool shutdown(std::chrono::steady_clock::time_point deadline);

  Metrics& metrics() { return metrics_; }
  // The serving batch of a served voice (index into voices()); null without batching.
  std::shared_ptr<engine::StreamBatch> batch(std::size_t voice) const;
  const Admission& admission() const { return admission_; }

 private:
  friend class SpeechJob;
  struct Served {
    ServedVoice voice;
    std::shared_ptr<engine::StreamBatch> batch;  // null without batching
  };
  using VoiceList = std::vector<Served>;
  // Replaced whole by add_voice (copy on write), so that a reader's snapshot never changes.
  std::shared_ptr<const VoiceList> snapshot() const;
  Served find_served(const std::string& name) const;
  mutable std::mutex voices_mutex_;
  std::shared_ptr<const VoiceList> voices_;
  ServiceOptions options_;
  Admission admission_;
  Metrics metrics_;
  std::mutex jobs_mutex_;
  std::set<SpeechJob*> jobs_;  // running, for shutdown's cancel
};

// The serving batch for `voice` that `options` ask for (ServiceOptions::batch streams on its
// device). Throws as vocoder::SamplerSource::make_multi_stream_sampler.
std::shared_ptr<engine::StreamBatch> make_serving_batch(const engine::Voice& voice,
                                                        const ServiceOptions& options);

// The number of Unicode code points in UTF-8 `text` (invalid bytes count one each).
std::size_t count_code_points(const std::string& text);

}  // namespace tts::serve
