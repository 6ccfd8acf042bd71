// The paths the HTTP side serves and the methods each allows, in one table, so that every other
// method on a known path gets 405 with an Allow header (http_server.cpp) and a new route is one
// line here plus its handler. Internal to tts_serve.
#pragma once

#include <string>

namespace tts::serve::http {

// The Allow header's value for `path` ("GET, HEAD"), or nullptr for a path not served.
const char* allowed_methods(const std::string& path);

// Whether `method` is one of `allow`'s (a list as allowed_methods gives).
bool method_allowed(const char* allow, const std::string& method);

}  // namespace tts::serve::http
