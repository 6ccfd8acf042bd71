// libFuzzer target for the .npy reader (kernels/io/npy.cpp, read_npy): the input is written to a
// file and read.
//
// Checks, besides the sanitizers': a read either throws NpyError (naming the file) or returns an
// array with exactly product(shape) floats; that array, written back with write_npy, starts with
// npy_header(shape) and reads back bit for bit with the same shape. Nothing else may escape; a
// shape that the file's bytes cannot hold must not be allocated (-rss_limit_mb catches that).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_support.h"
#include "tts/kernels/npy.h"

using tts::kernels::NpyArray;
using tts::kernels::NpyError;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = tts::fuzz::scratch() / "input.npy";
  tts::fuzz::write_bytes(path, std::string_view(reinterpret_cast<const char*>(data), size));
  NpyArray array;
  try {
    array = tts::kernels::read_npy(path);
  } catch (const NpyError& e) {
    TTS_FUZZ_CHECK(std::string(e.what()).find(path.string()) == 0);
    return 0;
  }
  std::size_t count = 1;
  for (std::size_t d : array.shape) count *= d;
  TTS_FUZZ_CHECK(array.data.size() == count);

  const auto again = tts::fuzz::scratch() / "again.npy";
  tts::kernels::write_npy(again, array.data.data(), array.shape);
  const std::string header = tts::kernels::npy_header(array.shape);
  const std::string written = tts::fuzz::read_bytes(again);
  TTS_FUZZ_CHECK(written.size() == header.size() + 4 * count);
  TTS_FUZZ_CHECK(written.compare(0, header.size(), header) == 0);
  const NpyArray back = tts::kernels::read_npy(again);
  TTS_FUZZ_CHECK(back.shape == array.shape);
  TTS_FUZZ_CHECK(count == 0 || std::memcmp(back.data.data(), array.data.data(), 4 * count) == 0);
  return 0;
}
