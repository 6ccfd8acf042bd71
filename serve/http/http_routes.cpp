#include "http_routes.h"

#include <cstring>

namespace tts::serve::http {

namespace {

struct Route {
  const char* path;
  const char* methods;  // as the Allow header lists them
};

// cpp-httplib answers HEAD with the GET handler, without the body.
constexpr Route kRoutes[] = {
    {"/v1/audio/speech", "POST"}, {"/v1/audio/voices", "GET, HEAD"}, {"/v1/models", "GET, HEAD"},
    {"/health", "GET, HEAD"},     {"/metrics", "GET, HEAD"},         {"/", "GET, HEAD"},
};

}  // namespace

const char* allowed_methods(const std::string& path) {
  for (const Route& r : kRoutes)
    if (path == r.path) return r.methods;
  return nullptr;
}

bool method_allowed(const char* allow, const std::string& method) {
  for (const char* at = allow; *at;) {
    std::size_t n = std::strcspn(at, ",");
    if (method.size() == n && method.compare(0, n, at, n) == 0) return true;
    at += n;
    while (*at == ',' || *at == ' ') ++at;
  }
  return false;
}

}  // namespace tts::serve::http
