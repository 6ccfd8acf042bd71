// The studio's HTTP routes (studio.h), on the server HttpServer runs. Internal to tts_serve.
//
//   GET  /v1/studio                          languages, voices being recorded, limits, the job
//   GET  /v1/studio/voices/NAME?lang=L       where NAME's recording stands, the next prompt
//   POST /v1/studio/voices/NAME/takes?lang=L&prompt=N   body: a 16-bit PCM mono WAV take
//   POST /v1/studio/voices/NAME/skip?lang=L&prompt=N
//   POST /v1/studio/voices/NAME/create       starts `tts voices create` on NAME's takes
//   GET  /v1/studio/job                      the job: stage, fraction, minutes left, verdict
//   POST /v1/studio/job/cancel
#pragma once

namespace httplib {
class Server;
}

namespace tts::serve {

class Studio;

void add_studio_routes(httplib::Server& server, Studio& studio);

}  // namespace tts::serve
