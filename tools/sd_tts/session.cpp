#include "session.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tts/build_info.h"
#include "tts/engine/voice_search.h"
#include "tts/frontend/language.h"
#include "tts/frontend/utf8.h"

namespace tts::speechd {

void Output::write_locked(std::string_view message) {
  const char* p = message.data();
  std::size_t left = message.size();
  while (left > 0 && !broken_) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      broken_ = true;
      return;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void Output::write(std::string_view message) {
  std::lock_guard<std::mutex> lock(mutex_);
  write_locked(message);
}

ModuleConfig read_module_config(const std::filesystem::path& path) {
  ModuleConfig config;
  if (path.empty()) return config;
  std::ifstream file(path);
  if (!file) {
    config.warnings.push_back("cannot read " + path.string() + ": using the defaults");
    return config;
  }
  std::stringstream text;
  text << file.rdbuf();
  for (const auto& [key, value] : parse_config(text.str())) {
    if (key == "ttsvoice") {
      config.voice = value;
    } else if (key == "ttsthreads") {
      if (auto n = parse_int(value, 1, 256))
        config.threads = *n;
      else
        config.warnings.push_back("TtsThreads " + value + ": not 1…256, ignored");
    } else if (key == "ttsdevice") {
      const auto& names = kernels::device_names();
      if (const auto it = names.find(value); it != names.end())
        config.device = it->second;
      else
        config.warnings.push_back("TtsDevice " + value + ": not cpu or cuda, ignored");
    } else if (key == "ttssentencesilence") {
      if (auto ms = parse_int(value, 0, 60000))
        config.sentence_silence = static_cast<float>(*ms) / 1000.0f;
      else
        config.warnings.push_back("TtsSentenceSilence " + value + ": not 0…60000 ms, ignored");
    } else if (key == "ttschunksamples") {
      if (auto n = parse_int(value, 64, 65536))
        config.chunk_samples = static_cast<std::size_t>(*n);
      else
        config.warnings.push_back("TtsChunkSamples " + value + ": not 64…65536, ignored");
    } else if (key == "debug" || key == "debugfile") {
      // speechd's generic module keys; nothing to do here
    } else {
      config.warnings.push_back("unknown key '" + key + "' in " + path.string() + ", ignored");
    }
  }
  return config;
}

Session::Session(ModuleConfig config, Output& out) : config_(std::move(config)), out_(out) {
  for (const std::string& warning : config_.warnings) log("sd_tts: " + warning);
}

Session::~Session() {
  shutdown();
  if (debug_) std::fclose(debug_);
}

void Session::log(const std::string& message) {
  // Lines quote the messages spoken, whose control characters stay off terminals and logs.
  const std::string line = frontend::printable(message);
  std::lock_guard<std::mutex> lock(log_mutex_);
  std::fprintf(stderr, "%s\n", line.c_str());
  if (debug_) {
    std::fprintf(debug_, "%s\n", line.c_str());
    std::fflush(debug_);
  }
}

bool Session::init(std::string& message) {
  try {
    std::filesystem::path folder = engine::resolve_voice(config_.voice);
    engine::VoiceInfo info = engine::read_voice_info(folder);
    default_voice_ = info.name;
    voice_folders_[info.name] = folder;
    installed_.push_back({info.name, info.languages});
    for (const std::filesystem::path& other : engine::list_voices()) {
      try {
        engine::VoiceInfo other_info = engine::read_voice_info(other);
        if (voice_folders_.count(other_info.name)) continue;
        voice_folders_[other_info.name] = other;
        installed_.push_back({other_info.name, other_info.languages});
      } catch (const std::exception& e) {
        log(std::string("sd_tts: skipping a voice: ") + e.what());
      }
    }
    loaded_[info.name] = engine::Voice::load(folder);
    message = "tts " + std::string(TTS_VERSION_STRING) + ": voice " + info.name + " (" +
              info.language + ", " + std::to_string(info.sample_rate) + " Hz) from " +
              folder.string();
  } catch (const std::exception& e) {
    message = std::string("sd_tts: ") + e.what();
    return false;
  }
  thread_ = std::thread([this] { worker(); });
  return true;
}

std::string Session::set(const std::vector<std::pair<std::string, std::string>>& settings) {
  bool bad = false;
  for (const auto& [key, value] : settings) {
    if (key == "rate" || key == "pitch" || key == "volume" || key == "pitch_range") {
      std::optional<int> n = parse_int(value, -100, 100);
      if (!n) {
        bad = true;
        continue;
      }
      if (key == "rate") rate_ = *n;
      if (key == "pitch") pitch_ = *n;
      if (key == "volume") volume_ = *n;
      // pitch_range: the acoustic model predicts the contour; nothing to widen it by.
    } else if (key == "punctuation_mode") {
      if (auto mode = parse_punctuation(value))
        punctuation_ = *mode;
      else
        bad = true;
    } else if (key == "language") {
      language_ = value;
    } else if (key == "synthesis_voice") {
      synthesis_voice_ = value;
    } else if (key == "spelling_mode") {
      if (value == "on" || value == "off")
        spelling_ = value == "on";
      else
        bad = true;
    } else if (key == "voice" || key == "cap_let_recogn") {
      // voice (MALE1, FEMALE1, ...): each of our voices is one speaker, chosen by name or
      // language; capital letters (none, spell, icon): not signalled.
    } else {
      log("sd_tts: unknown setting " + key + "=" + value + ", ignored");
    }
  }
  return bad ? kReplyBadParam : kReplySettingsReceived;
}

std::string Session::audio(const std::vector<std::pair<std::string, std::string>>& settings) {
  // Only the server's audio output: the module sends 705 AUDIO and speech-dispatcher plays it
  // (with its AudioOutputMethod) and reports each mark when its audio is played.
  for (const auto& [key, value] : settings)
    if (key != "audio_output_method" || value != "server") return kReplyBadParam;
  return kReplyAudioInitialized;
}

std::string Session::loglevel(const std::vector<std::pair<std::string, std::string>>& settings) {
  for (const auto& [key, value] : settings)
    if (key != "log_level" || !parse_int(value, 0, 5)) return kReplyBadParam;
  return kReplyLogLevelSet;
}

std::string Session::debug(bool on, const std::string& file) {
  std::lock_guard<std::mutex> lock(log_mutex_);
  if (debug_) {
    std::fclose(debug_);
    debug_ = nullptr;
  }
  if (!on) return "200 OK DEBUGGING OFF";
  debug_ = std::fopen(file.c_str(), "a");
  if (!debug_) return "303 CANT OPEN CUSTOM DEBUG FILE";
  return "200 OK DEBUGGING ON";
}

std::string Session::list_voices() const {
  std::vector<VoiceEntry> entries;
  for (const InstalledVoice& voice : installed_)  // a voice once for each language it speaks
    for (const std::string& language : voice.languages)
      entries.push_back({voice.name, language, ""});
  return format_voice_list(entries);
}

void Session::speak(const Request& request) {
  Job job;
  job.kind = request.kind;
  switch (request.kind) {
    case Request::Kind::kChar:
      job.ssml = char_ssml(request.text);
      break;
    case Request::Kind::kKey:
      job.ssml = key_ssml(request.text);
      break;
    case Request::Kind::kSoundIcon:
      job.ssml = request.text;
      break;
    default:
      job.ssml =
          spelling_ ? spell_ssml(request.text) : speak_punctuation(request.text, punctuation_);
  }
  job.voice = choose_voice(installed_, synthesis_voice_, language_, default_voice_);
  // The text is read in the language set, when the voice speaks it (a bilingual voice chosen for
  // its second language reads that one); else in the voice's own.
  for (const InstalledVoice& voice : installed_)
    if (voice.name == job.voice && language_ != "NULL" &&
        frontend::match_language(language_, voice.languages))
      job.options.language = language_;
  job.options.rate = rate_factor(rate_);
  job.options.pitch_semitones = pitch_semitones(pitch_);
  job.options.volume = volume_gain(volume_);
  job.options.ssml = true;
  job.options.threads = config_.threads;
  job.options.device = config_.device;
  job.options.sentence_silence = config_.sentence_silence;
  job.options.chunk_samples = config_.chunk_samples;
  bool cancel = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job.id = next_id_++;
    {
      std::lock_guard<std::mutex> out_lock(out_.mutex());
      if (active_ && !active_ended_) {  // the server stops before it speaks; in case it did not
        out_.write_locked("703 STOP\n");
        cancel = true;
      }
      out_.write_locked(std::string(kReplySpeaking) + "\n");
      active_ = job.id;
      active_ended_ = false;
      pause_requested_ = false;
    }
    queued_ = std::move(job);
  }
  if (cancel) {
    std::lock_guard<std::mutex> lock(stream_mutex_);
    if (stream_) stream_->cancel();
  }
  wake_.notify_one();
}

void Session::stop() {
  {
    std::lock_guard<std::mutex> lock(out_.mutex());
    if (!active_ || active_ended_) return;
    out_.write_locked("703 STOP\n");
    active_ended_ = true;
  }
  std::lock_guard<std::mutex> lock(stream_mutex_);
  if (stream_) stream_->cancel();
}

void Session::pause() { pause_requested_ = true; }

void Session::shutdown() {
  stop();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

bool Session::emit(std::uint64_t id, std::string_view message, bool final) {
  std::lock_guard<std::mutex> lock(out_.mutex());
  if (active_ != id || active_ended_) return false;
  out_.write_locked(message);
  if (final) active_ended_ = true;
  return true;
}

std::shared_ptr<const engine::Voice> Session::voice(const std::string& name) {
  if (auto it = loaded_.find(name); it != loaded_.end()) return it->second;
  auto folder = voice_folders_.find(name);
  auto loaded = engine::Voice::load(folder != voice_folders_.end() ? folder->second
                                                                   : engine::resolve_voice(name));
  loaded_[name] = loaded;
  return loaded;
}

void Session::worker() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return quit_ || queued_.has_value(); });
      if (quit_) return;
      job = std::move(*queued_);
      queued_.reset();
    }
    try {
      run(job);
    } catch (const std::exception& e) {
      log(std::string("sd_tts: ") + e.what());
      emit(job.id, "702 END\n", true);
    }
  }
}

namespace {

std::vector<std::int16_t> to_pcm16(const float* samples, std::size_t count) {
  std::vector<std::int16_t> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    float v = std::clamp(samples[i], -1.0f, 1.0f);
    out[i] = static_cast<std::int16_t>(std::lrint(v * 32767.0f));
  }
  return out;
}

}  // namespace

void Session::run(const Job& job) {
  if (job.kind == Request::Kind::kSoundIcon) {
    // The server plays its own sound icon files (706 ICON, as speechd's modules do).
    if (emit(job.id, "701 BEGIN\n") && emit(job.id, format_icon(job.ssml)))
      emit(job.id, "702 END\n", true);
    return;
  }
  if (!emit(job.id, "701 BEGIN\n")) return;  // stopped before it began
  std::shared_ptr<const engine::Voice> v = voice(job.voice);
  engine::SynthesisStream* stream;
  {
    std::lock_guard<std::mutex> lock(stream_mutex_);
    if (!stream_ || &stream_->voice() != v.get())
      stream_ = std::make_unique<engine::SynthesisStream>(v);
    stream = stream_.get();
  }
  // A message the engine cannot read as SSML (malformed, not SSML, not UTF-8) is still spoken: its
  // text without the markup, with the reason in the log. A screen reader's user hears something
  // rather than silence, and whoever reads the log learns why the markup was not followed.
  bool as_ssml = true;
  auto speak_text_only = [&](const std::string& reason) {
    log("sd_tts: " + reason + "; speaking the message's text without its markup");
    engine::SynthesisOptions plain = job.options;
    plain.ssml = false;
    as_ssml = false;
    stream->start(text_of_markup(job.ssml), plain);
  };
  if (const auto bad = frontend::find_invalid_utf8(job.ssml))
    speak_text_only("the message is not valid UTF-8 (byte offset " + std::to_string(*bad) + ")");
  else
    stream->start(job.ssml, job.options);
  {
    std::lock_guard<std::mutex> lock(out_.mutex());
    if (active_ != job.id || active_ended_) {  // STOP came while it started
      stream->cancel();
      return;
    }
  }
  engine::AudioChunk chunk;
  bool spoken = false;  // a chunk has come: too late to start over without the markup
  for (;;) {
    try {
      if (!stream->next(chunk)) break;
      spoken = true;
    } catch (const engine::SynthesisCancelled&) {
      return;  // STOP (already reported) or PAUSE
    } catch (const engine::SynthesisInputError& e) {
      if (spoken || !as_ssml) {
        log(std::string("sd_tts: cannot speak: ") + e.what());
        break;
      }
      speak_text_only(e.what());
      continue;
    } catch (const std::exception& e) {
      log(std::string("sd_tts: cannot speak: ") + e.what());
      break;
    }
    // The audio up to each mark, then the mark: the server plays them in this order and tells
    // the client about the mark when the audio before it has been played.
    std::vector<std::int16_t> pcm = to_pcm16(chunk.samples.data(), chunk.samples.size());
    std::size_t done = 0;
    auto send_audio = [&](std::size_t end) {
      if (end <= done) return true;
      bool sent = emit(job.id, format_audio(pcm.data() + done, end - done, chunk.sample_rate));
      done = end;
      return sent;
    };
    for (const engine::ChunkMark& mark : chunk.marks) {
      if (!send_audio(std::min(mark.sample, pcm.size())) ||
          !emit(job.id, format_index_mark(mark.name))) {
        stream->cancel();
        return;
      }
      // PAUSE: speechd resumes a paused message from its last __spd_ mark, so stop right there.
      if (pause_requested_ && mark.name.rfind("__spd_", 0) == 0) {
        emit(job.id, "704 PAUSE\n", true);
        stream->cancel();
        return;
      }
    }
    if (!send_audio(pcm.size())) {
      stream->cancel();
      return;
    }
  }
  emit(job.id, "702 END\n", true);
}

}  // namespace tts::speechd
