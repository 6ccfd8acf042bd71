// Reading the JSON files given to --config, shared by the subcommands that take one.
#include <fstream>

#include "command_line.h"

namespace tts::cli {

nlohmann::json read_config_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CLI::ValidationError("--config", path + ": cannot open");
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw CLI::ValidationError("--config", path + ": not valid JSON: " + e.what());
  }
}

}  // namespace tts::cli
