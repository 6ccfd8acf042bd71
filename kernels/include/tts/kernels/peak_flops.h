// The machine's own FLOP bound, measured, so benchmarks can report a fraction of it.
#pragma once

namespace tts::kernels {

// Single-thread peak of fused multiply-adds in registers (no memory traffic), in GFLOP/s, measured
// over about `seconds` in the ISA variant the CPU kernels run (cpu_isa.h). An upper bound for them.
double measure_peak_gflops(double seconds = 0.2);

}  // namespace tts::kernels
