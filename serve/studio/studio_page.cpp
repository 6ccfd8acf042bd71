#include "studio_page.h"

#include <cstddef>

// Last: through <resolv.h> it defines a macro `_res`, a parameter name in Eigen's headers.
#include <httplib.h>

namespace tts::serve {

// Made at build time from serve/web/studio.js (cmake/embed_text.cmake).
extern const char studio_js[];
extern const std::size_t studio_js_size;

void serve_studio_script(httplib::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Cache-Control", "no-cache");
  res.set_content(studio_js, studio_js_size, "text/javascript; charset=utf-8");
}

}  // namespace tts::serve
