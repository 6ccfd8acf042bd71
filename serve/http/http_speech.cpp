#include "http_speech.h"

#include <memory>

#include "tts/audio/audio_file.h"
#include "tts/audio/stream_encoder.h"
#include "tts/serve/openai_speech.h"
// Last: through <resolv.h> it defines a macro `_res`, a parameter name in Eigen's headers.
#include <httplib.h>

namespace tts::serve::http {

namespace {

// What a streamed response needs between the provider's calls: the synthesis, the encoder, and
// the first chunk (pulled before the status line is sent, so that text the engine cannot say
// still gets a 400).
struct SpeechStream {
  std::unique_ptr<SpeechJob> job;
  std::unique_ptr<audio::StreamEncoder> encoder;
  engine::AudioChunk first;
  bool first_pending = true;
};

// Writes the stream's next piece; false ends the response without its final chunk, which a
// client reads as a truncated transfer (a mid-stream failure cannot change the status any more).
bool provide(SpeechStream& s, httplib::DataSink& sink) {
  try {
    std::string bytes;
    bool done = false;
    if (s.first_pending) {
      s.first_pending = false;
      bytes = s.encoder->encode(s.first.samples.data(), s.first.samples.size());
      s.first = {};
    } else {
      engine::AudioChunk chunk;
      if (s.job->next(chunk)) {
        bytes = s.encoder->encode(chunk.samples.data(), chunk.samples.size());
      } else {
        bytes = s.encoder->finish();
        done = true;
      }
    }
    if (!bytes.empty() && !sink.write(bytes.data(), bytes.size())) {
      s.job->cancel();  // the client has gone: stop making audio for it now
      return false;
    }
    if (done) sink.done();
    return true;
  } catch (const std::exception&) {
    s.job->cancel();
    return false;
  }
}

}  // namespace

void send_error(httplib::Response& res, int status, const std::string& message,
                const std::string& type) {
  res.status = status;
  res.set_content(openai_error_json(message, type), "application/json");
}

void answer_speech(SpeechService& service, const std::string& body, httplib::Response& res) {
  OpenAiSpeech speech;
  auto stream = std::make_shared<SpeechStream>();
  bool started = false;  // start() counts its own request and errors
  try {
    speech = parse_openai_speech(body);
    // By name, or without one by our "language" (OpenAI's body has none), as Wyoming chooses.
    const ServedVoice& voice = service.voice(speech.request.voice, speech.request.language);
    speech.request.voice = voice.name;
    try {
      stream->encoder = audio::make_stream_encoder(speech.format, voice.voice->sample_rate());
    } catch (const audio::AudioError& e) {
      throw RequestError(std::string("response_format: ") + e.what());
    }
    started = true;
    stream->job = service.start(speech.request, "http");
    bool more = stream->job->next(stream->first);
    while (more && stream->first.samples.empty()) more = stream->job->next(stream->first);
    if (!more) {  // white space, punctuation, symbols the voice does not read: no audio at all
      service.metrics().error("http", "bad_input");
      send_error(res, 400,
                 "input: there is nothing to speak in it (only white space, punctuation or "
                 "symbols the voice does not read)",
                 "invalid_request_error");
      return;
    }
  } catch (const RequestError& e) {
    if (!started) {
      service.metrics().request("http");
      service.metrics().error("http", "bad_request");
    }
    send_error(res, 400, e.what(), "invalid_request_error");
    return;
  } catch (const engine::SynthesisInputError& e) {
    send_error(res, 400, std::string("input: ") + e.what(), "invalid_request_error");
    return;
  } catch (const BusyError& e) {
    res.set_header("Retry-After", "1");
    send_error(res, 503, e.what(), "server_busy");
    return;
  } catch (const std::exception& e) {
    service.metrics().error("http", "internal");
    send_error(res, 500, e.what(), "server_error");
    return;
  }
  std::string mime = stream->encoder->mime_type();
  res.set_chunked_content_provider(
      mime, [stream](std::size_t, httplib::DataSink& sink) { return provide(*stream, sink); },
      [stream](bool) { stream->job.reset(); });
}

}  // namespace tts::serve::http
