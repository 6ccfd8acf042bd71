#include "wyoming_info.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "tts/build_info.h"

namespace tts::serve {

using nlohmann::json;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// BCP 47 casing of an espeak-ng language ("en-us" → "en-US", "en-gb-x-rp" → "en-GB-x-rp"): what
// Home Assistant lists and matches its pipeline languages against.
std::string bcp47(const std::string& language) {
  std::string out;
  std::size_t start = 0;
  for (int part = 0; start <= language.size(); ++part) {
    std::size_t end = language.find_first_of("-_", start);
    if (end == std::string::npos) end = language.size();
    std::string sub = language.substr(start, end - start);
    if (part == 0) {
      sub = lower(sub);
    } else if (sub.size() == 2) {
      for (char& c : sub) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    out += (part == 0 ? "" : "-") + sub;
    start = end + 1;
  }
  return out;
}

}  // namespace

// `info`, answered to `describe`: one text-to-speech program whose voices are the served ones.
// Every field rhasspy/wyoming's Info.from_event needs is present.
wyoming::Event info_event(const SpeechService& service) {
  json voices = json::array();
  for (const auto& v : service.voices()) {
    const auto& info = v.voice->info();
    voices.push_back(
        {{"name", v.name},
         {"description", info.description.empty() ? v.name : info.description},
         {"attribution",
          {{"name", info.source.empty() ? std::string("tts") : info.source}, {"url", ""}}},
         {"installed", true},
         {"version", nullptr},
         {"languages", {bcp47(info.language)}},
         {"speakers", nullptr}});
  }
  json program = {{"name", "tts"},
                  {"description", "tts: local neural speech synthesis"},
                  {"attribution", {{"name", "tts"}, {"url", ""}}},
                  {"installed", true},
                  {"version", TTS_VERSION_STRING},
                  {"voices", voices},
                  {"supports_synthesize_streaming", true}};
  wyoming::Event event;
  event.type = "info";
  event.data = {{"asr", json::array()},
                {"tts", json::array({program})},
                {"handle", json::array()},
                {"intent", json::array()},
                {"wake", json::array()}};
  return event;
}

}  // namespace tts::serve
