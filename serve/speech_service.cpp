#include "tts/serve/speech_service.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "tts/engine/voice_language.h"

namespace tts::serve {

namespace {
// OpenAI's own voice names: clients written for its API send one of these (often "alloy", the
// default of many), so they mean "the default voice" here.
constexpr std::array<const char*, 13> kOpenAiVoices = {
    "alloy", "ash",  "ballad",  "coral", "echo",  "fable", "nova",
    "onyx",  "sage", "shimmer", "verse", "marin", "cedar"};

// What a request refused because the server is shutting down is told, on either protocol.
constexpr char kStopping[] = "the server is stopping: it takes no new requests";

double seconds_between(std::chrono::steady_clock::time_point a,
                       std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

std::shared_ptr<engine::StreamBatch> make_serving_batch(const engine::Voice& voice,
                                                        const ServiceOptions& options) {
  return std::make_shared<engine::StreamBatch>(
      *voice.vocoder().weights,
      voice.samplers().make_multi_stream_sampler(options.device, options.batch,
                                                 {0, 1.0f, options.batch_threads}));
}

std::size_t count_code_points(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

void ServiceOptions::validate() const {
  if (workers < 1 || workers > 256) throw std::invalid_argument("workers must be in [1, 256]");
  if (queue < 0 || queue > 4096) throw std::invalid_argument("queue must be in [0, 4096]");
  if (max_text_chars < 1) throw std::invalid_argument("max text length must be at least 1");
  if (queue_wait.count() < 0) throw std::invalid_argument("queue wait must not be negative");
  if (max_request.count() < 1) throw std::invalid_argument("request time limit must be positive");
  if (threads_per_stream < 1 || threads_per_stream > 256)
    throw std::invalid_argument("threads per stream must be in [1, 256]");
  if (batch < 0 || batch > 65536) throw std::invalid_argument("batch must be in [0, 65536]");
  if (batch_threads < 1 || batch_threads > 256)
    throw std::invalid_argument("batch threads must be in [1, 256]");
}

SpeechService::SpeechService(std::vector<ServedVoice> voices, ServiceOptions options)
    : options_(options),
      admission_((options.validate(), options.batch > 0 ? options.batch : options.workers),
                 options.queue) {
  if (voices.empty()) throw std::invalid_argument("a server needs at least one voice");
  auto list = std::make_shared<VoiceList>();
  for (ServedVoice& v : voices) {
    auto batch = options.batch > 0 ? make_serving_batch(*v.voice, options) : nullptr;
    list->push_back({std::move(v), std::move(batch)});
  }
  voices_ = std::move(list);
}

std::shared_ptr<const SpeechService::VoiceList> SpeechService::snapshot() const {
  std::lock_guard<std::mutex> lock(voices_mutex_);
  return voices_;
}

std::vector<ServedVoice> SpeechService::voices() const {
  std::vector<ServedVoice> out;
  for (const Served& s : *snapshot()) out.push_back(s.voice);
  return out;
}

std::shared_ptr<engine::StreamBatch> SpeechService::batch(std::size_t voice) const {
  return snapshot()->at(voice).batch;
}

void SpeechService::add_voice(ServedVoice voice) {
  Served added{std::move(voice), nullptr};
  if (options_.batch > 0) added.batch = make_serving_batch(*added.voice.voice, options_);
  std::lock_guard<std::mutex> lock(voices_mutex_);
  auto list = std::make_shared<VoiceList>(*voices_);
  auto same = std::find_if(list->begin(), list->end(),
                           [&](const Served& s) { return s.voice.name == added.voice.name; });
  if (same != list->end())
    *same = std::move(added);
  else
    list->push_back(std::move(added));
  voices_ = std::move(list);
}

SpeechService::Served SpeechService::find_served(const std::string& name) const {
  const auto list = snapshot();
  if (name.empty()) return list->front();
  if (name.find('\0') != std::string::npos)
    throw RequestError("voice: the name contains a NUL character (U+0000), which no voice has");
  for (const auto& s : *list)
    if (s.voice.name == name) return s;
  if (std::find(kOpenAiVoices.begin(), kOpenAiVoices.end(), name) != kOpenAiVoices.end())
    return list->front();
  std::string known;
  for (const auto& s : *list) known += (known.empty() ? "" : ", ") + s.voice.name;
  throw RequestError("voice \"" + name + "\" is not served here (voices: " + known + ")");
}

ServedVoice SpeechService::voice(const std::string& name) const { return find_served(name).voice; }

ServedVoice SpeechService::voice(const std::string& name, const std::string& language) const {
  if (!name.empty() || language.empty()) return voice(name);
  const auto list = snapshot();
  std::vector<std::vector<std::string>> spoken;
  for (const auto& s : *list) spoken.push_back(s.voice.voice->info().languages);
  return list->at(engine::voice_for_language(language, spoken).value_or(0)).voice;
}

std::unique_ptr<SpeechJob> SpeechService::start(const SpeechRequest& request,
                                                const std::string& protocol) {
  metrics_.request(protocol);
  try {
    const Served chosen = find_served(request.voice);
    const ServedVoice& served = chosen.voice;
    if (request.text.empty()) throw RequestError("input: the text is empty");
    std::size_t chars = count_code_points(request.text);
    if (chars > options_.max_text_chars)
      throw RequestError("input: " + std::to_string(chars) +
                         " characters, more than the limit of " +
                         std::to_string(options_.max_text_chars));
    engine::SynthesisOptions synthesis;
    synthesis.rate = request.rate;
    synthesis.pitch_semitones = request.pitch_semitones;
    synthesis.volume = request.volume;
    synthesis.ssml = request.ssml;
    if (served.voice->text().find_language(request.language)) synthesis.language = request.language;
    synthesis.threads = options_.threads_per_stream;
    synthesis.device = options_.device;
    synthesis.batch = chosen.batch;
    try {
      synthesis.validate();
    } catch (const std::invalid_argument& e) {
      throw RequestError(e.what());
    }
    if (request.pitch_semitones != 0.0f && !served.voice->can_shift_pitch())
      throw RequestError("voice \"" + served.name +
                         "\" cannot shift its pitch (it predates pitch)");

    auto ticket = admission_.try_enter();
    if (!ticket)
      throw BusyError(admission_.closed() ? kStopping
                                          : "every synthesis worker is busy and the queue is full");
    if (!ticket->wait_for_worker(std::chrono::steady_clock::now() + options_.queue_wait))
      throw BusyError(admission_.closed()
                          ? kStopping
                          : "no synthesis worker became free within " +
                                std::to_string(options_.queue_wait.count()) + " ms");
    std::unique_ptr<SpeechJob> job(new SpeechJob(*this, served.voice, std::move(ticket), protocol));
    job->stream_.start(request.text, synthesis);
    return job;
  } catch (const RequestError&) {
    metrics_.error(protocol, "bad_request");
    throw;
  } catch (const BusyError&) {
    metrics_.error(protocol, admission_.closed() ? "stopping" : "busy");
    throw;
  }
}

bool SpeechService::shutdown(std::chrono::steady_clock::time_point deadline) {
  admission_.close();
  if (admission_.wait_idle(deadline)) return true;
  {
    std::lock_guard<std::mutex> lock(jobs_mutex_);
    for (SpeechJob* job : jobs_) job->cancel();
  }
  admission_.wait_idle(std::chrono::steady_clock::now() + std::chrono::seconds(5));
  return false;
}

SpeechJob::SpeechJob(SpeechService& service, std::shared_ptr<const engine::Voice> voice,
                     std::unique_ptr<Admission::Ticket> ticket, std::string protocol)
    : service_(service),
      ticket_(std::move(ticket)),
      stream_(std::move(voice)),
      protocol_(std::move(protocol)),
      started_(std::chrono::steady_clock::now()),
      deadline_(started_ + service.options().max_request) {
  std::lock_guard<std::mutex> lock(service_.jobs_mutex_);
  service_.jobs_.insert(this);
}

SpeechJob::~SpeechJob() {
  {
    std::lock_guard<std::mutex> lock(service_.jobs_mutex_);
    service_.jobs_.erase(this);
  }
  stream_.cancel();
  if (!finished_) service_.metrics().error(protocol_, "cancelled");
}

bool SpeechJob::expired() const { return std::chrono::steady_clock::now() > deadline_; }

bool SpeechJob::next(engine::AudioChunk& chunk) {
  if (expired()) {
    stream_.cancel();
    finished_ = true;  // counted as a timeout, not also as a cancellation
    service_.metrics().error(protocol_, "timeout");
    throw RequestError("the synthesis ran past the request time limit");
  }
  bool more;
  try {
    more = stream_.next(chunk);
  } catch (const engine::SynthesisInputError&) {
    service_.metrics().error(protocol_, "bad_input");
    finished_ = true;  // counted here, not as a cancellation
    throw;
  } catch (const engine::SynthesisCancelled&) {
    throw;
  } catch (const std::exception&) {
    service_.metrics().error(protocol_, "synthesis");
    finished_ = true;
    throw;
  }
  auto now = std::chrono::steady_clock::now();
  if (more && samples_ == 0 && !chunk.samples.empty()) first_audio_ = now;
  if (more) samples_ += chunk.samples.size();
  if (!more || chunk.is_last) {
    if (!finished_) {
      finished_ = true;
      double first = first_audio_ == std::chrono::steady_clock::time_point{}
                         ? 0.0
                         : seconds_between(started_, first_audio_);
      service_.metrics().synthesis(static_cast<double>(samples_) / sample_rate(),
                                   seconds_between(started_, now), first);
    }
  }
  return more;
}

void SpeechJob::cancel() { stream_.cancel(); }

}  // namespace tts::serve
