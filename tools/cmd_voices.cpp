// `tts voices`: list the voices on the search path.
#include <iostream>

#include "commands.h"
#include "tts/engine/voice_search.h"

namespace tts::cli {

void register_voices(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("voices", "List installed voices");
  cmd->callback([&exit_code] {
    auto voices = engine::list_voices();
    if (voices.empty()) std::cout << "no voices installed\n";
    for (const auto& v : voices) std::cout << v.filename().string() << "\t" << v.string() << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
