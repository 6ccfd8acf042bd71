// The machine's own bound on reading memory, measured, so benchmarks can report how close a
// bytes-bound kernel (the GEMVs of sampling) comes to it.
#pragma once

#include <cstddef>

namespace tts::kernels {

// Bytes per second one thread reads from a buffer of `bytes`, read whole again and again for
// about `seconds`: the rate at which a kernel that streams that many bytes of weights per call
// can at best read them, from whichever cache level holds a buffer of that size.
double measure_read_bytes_per_second(std::size_t bytes, double seconds = 0.2);

}  // namespace tts::kernels
