// The page `tts serve` answers GET / with: a text box, the served voices, rate and pitch, and
// speech that plays as it streams (PCM from POST /v1/audio/speech, on the Web Audio API). One
// HTML file with its CSS and JavaScript inline (serve/web/index.html, built into the
// binary), no external assets, so it works on a machine without a network. It holds no secret and
// is served without the API key; with `--api-key` set, the page asks for the key and sends it.
#pragma once

#include <string_view>

namespace httplib {
struct Response;
}

namespace tts::serve {

// The page's HTML.
std::string_view web_page();

// Fills `res` with the page and headers that keep it to this server: a Content-Security-Policy
// that lets it load nothing and talk to nobody but the server it came from.
void serve_web_page(httplib::Response& res);

}  // namespace tts::serve
