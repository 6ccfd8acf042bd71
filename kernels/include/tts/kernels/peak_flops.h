// The machine's own FLOP bound, measured, so benchmarks can report a fraction of it.
#pragma once

namespace tts::kernels {

// Single-thread peak of fused multiply-adds in registers (no memory traffic), in GFLOP/s, measured
// over about `seconds` with the widest vector ISA this CPU runs. An upper bound for any kernel.
double measure_peak_gflops(double seconds = 0.2);

}  // namespace tts::kernels
