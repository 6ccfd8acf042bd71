#include "tts/serve/web_page.h"

#include <cstddef>

// Last: through <resolv.h> it defines a macro `_res`, a parameter name in Eigen's headers.
#include <httplib.h>

namespace tts::serve {

// Made at build time from serve/web/index.html (cmake/embed_text.cmake).
extern const char web_page_html[];
extern const std::size_t web_page_html_size;

std::string_view web_page() { return {web_page_html, web_page_html_size}; }

void serve_web_page(httplib::Response& res) {
  // The page's script and style are inline; it fetches only from this origin, so a page changed
  // by mistake to load from elsewhere fails in the browser (and in its test) instead of leaking.
  res.set_header(
      "Content-Security-Policy",
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; "
      "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
      "frame-ancestors 'none'");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Cache-Control", "no-cache");
  res.set_content(web_page_html, web_page_html_size, "text/html; charset=utf-8");
}

}  // namespace tts::serve
