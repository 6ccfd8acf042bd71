// Syntheses still running when the program exits. A program may start a stream and return from
// main (or call exit()) without freeing it; its frontend and vocoder threads would then run on
// while the process tears down libespeak-ng, OpenBLAS's buffers and static objects under them
// (a crash in a GEMM, or a hang in espeak-ng's exit handler). An exit handler, registered after
// espeak-ng's so that it runs first, cancels every running synthesis and joins its threads.
// Internal to tts_engine.
#pragma once

namespace tts::engine {

class StoppableAtExit {
 public:
  // Cancels and joins the synthesis' threads; called once, from the exit handler.
  virtual void stop_at_exit() = 0;

 protected:
  ~StoppableAtExit() = default;
};

// Registers a running synthesis until unregister_at_exit. The first call initialises espeak-ng
// and installs the exit handler (throws std::runtime_error if espeak-ng cannot start).
void register_at_exit(StoppableAtExit* run);
void unregister_at_exit(StoppableAtExit* run);

// True once the exit handler has run: no new synthesis may start.
bool process_exiting();

}  // namespace tts::engine
