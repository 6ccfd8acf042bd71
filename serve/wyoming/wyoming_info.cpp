#include "wyoming_info.h"

#include <nlohmann/json.hpp>

#include "tts/build_info.h"

namespace tts::serve {

using nlohmann::json;

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
         {"languages", info.languages},
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
