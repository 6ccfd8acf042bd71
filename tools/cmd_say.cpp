// `tts say`: speak text with a voice.
#include <iostream>

#include "commands.h"
#include "tts/engine/voice_search.h"

namespace tts::cli {

namespace {
struct SayOptions {
  std::vector<std::string> words;
  std::string voice = "default";
  std::string output;
};
}  // namespace

void register_say(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<SayOptions>();
  CLI::App* cmd = app.add_subcommand("say", "Speak text through the speakers or into a file");
  cmd->add_option("text", options->words, "Text to speak");
  cmd->add_option("--voice", options->voice, "Voice name or folder")->capture_default_str();
  cmd->add_option("-o,--output", options->output, "Write audio to FILE (wav, flac or ogg)");
  cmd->callback([options, &exit_code] {
    auto voice = engine::find_voice(options->voice);
    if (!voice) {
      std::cerr << "tts say: no voice installed yet (looked for \"" << options->voice
                << "\" in TTS_VOICE_PATH, ~/.local/share/tts/voices and the repository's voices/)\n";
      exit_code = kExitBadInput;
      return;
    }
    std::cerr << "tts say: voice " << voice->string() << " found, but synthesis is not built yet\n";
    exit_code = kExitFailure;
  });
}

}  // namespace tts::cli
