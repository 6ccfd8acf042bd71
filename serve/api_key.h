// The API key of `tts serve` (--api-key), as both protocols check it: HTTP's
// "Authorization: Bearer KEY" (the scheme in any case, as RFC 9110 allows) and Wyoming's
// `api_key` field. Compared in constant time. Internal to tts_serve.
#pragma once

#include <string>

namespace tts::serve {

// Whether `given` is `key`, in a time that does not depend on where they differ.
bool key_matches(const std::string& given, const std::string& key);

// Whether an Authorization header's value carries `key` as its Bearer token.
bool bearer_matches(const std::string& authorization, const std::string& key);

}  // namespace tts::serve
