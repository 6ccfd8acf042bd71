// Shared helpers of the libFuzzer targets in fuzz/: a failed invariant, a private scratch folder
// for the loaders that read files, and writing bytes to a file there.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace tts::fuzz {

// A broken promise of the code under test: says which and aborts, so libFuzzer keeps the input.
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant failed: %s\n", what);
  std::abort();
}

#define TTS_FUZZ_CHECK(condition)                                      \
  do {                                                                 \
    if (!(condition)) ::tts::fuzz::fail(#condition " (" __FILE__ ")"); \
  } while (0)

// A folder of this process under $TMPDIR (or /tmp), made on first use and removed at exit.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path folder = [] {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/tts-fuzz-XXXXXX";
    if (!::mkdtemp(pattern.data())) fail("cannot create a scratch folder");
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch(), ignored);
    });
    return std::filesystem::path(pattern);
  }();
  return folder;
}

inline void write_bytes(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) fail("cannot write a scratch file");
}

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace tts::fuzz

namespace tts::fuzz {

// Where TTS_FUZZ_SEEDS points (empty when unset): the targets whose seeds come from files they
// make at start-up (a random voice, training checkpoints) write them there, one per mode, for
// regenerating fuzz/corpus/NAME (docs/architecture.md, "Fuzzing").
inline std::filesystem::path seeds_folder() {
  const char* folder = std::getenv("TTS_FUZZ_SEEDS");
  return folder && *folder ? std::filesystem::path(folder) : std::filesystem::path();
}

// Writes the seed `name`: the mode byte, then the file's bytes.
inline void write_seed(const std::string& name, char mode, const std::filesystem::path& file) {
  const auto folder = seeds_folder();
  if (folder.empty()) return;
  std::filesystem::create_directories(folder);
  write_bytes(folder / name, std::string(1, mode) + read_bytes(file));
}

}  // namespace tts::fuzz
