// The studio's part of the page (serve/web/studio.js, built into the binary): the page
// loads it from /studio.js; it shows the studio only when GET /v1/studio answers. Internal to
// tts_serve.
#pragma once

namespace httplib {
struct Response;
}

namespace tts::serve {

void serve_studio_script(httplib::Response& res);

}  // namespace tts::serve
