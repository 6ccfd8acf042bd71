// A file's bytes read whole, and bytes written to a file, for tests that compare or craft files.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tts::testing_support {

// The file's bytes; empty when it cannot be read.
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

}  // namespace tts::testing_support
