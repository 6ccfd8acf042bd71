// The check of every subcommand's --seed (command_line.h).
#include <cerrno>
#include <cstdlib>

#include "command_line.h"

namespace tts::cli {

CLI::Validator seed_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (digits) {
          errno = 0;
          std::strtoull(text.c_str(), nullptr, 10);
          if (errno != ERANGE) return "";
        }
        return "a seed is a whole number from 0 to 18446744073709551615, not \"" + text + "\"";
      },
      "SEED");
}

}  // namespace tts::cli
