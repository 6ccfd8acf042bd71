// The sampler's choice between two overlapping stages and one thread, fed with made-up timings.
#include <gtest/gtest.h>

#include "../vocoder/two_stage_chooser.h"

using tts::vocoder::TwoStageChooser;

namespace {

constexpr std::size_t kCall = 2048;

// Runs `calls` calls whose time per sample is `one` on one thread and `two` in two stages, and
// returns how many ran in two stages.
int run_calls(TwoStageChooser& chooser, int calls, double one, double two) {
  int in_two_stages = 0;
  for (int i = 0; i < calls; ++i) {
    const bool two_stages = chooser.use_two_stages(kCall);
    in_two_stages += two_stages;
    chooser.record(two_stages, kCall, (two_stages ? two : one) * kCall);
  }
  return in_two_stages;
}

}  // namespace

TEST(TwoStageChooser, KeepsTwoStagesWhileTheyAreFaster) {
  TwoStageChooser chooser;
  EXPECT_TRUE(chooser.use_two_stages(kCall));  // what was asked for comes first
  // 100 calls: one to measure one thread, then one probe of it every 17 calls.
  const int two = run_calls(chooser, 100, 10e-6, 6e-6);
  EXPECT_GE(two, 100 - 1 - 100 / (TwoStageChooser::kProbeInterval + 1));
  EXPECT_LT(two, 100);
}

TEST(TwoStageChooser, FallsBackToOneThreadOnABusyMachineAndReturnsWhenItIsQuiet) {
  TwoStageChooser chooser;
  // Busy: two stages take 7 times as long (measured on a loaded 2-core machine).
  const int busy = run_calls(chooser, 100, 10e-6, 70e-6);
  EXPECT_LE(busy, 1 + 100 / TwoStageChooser::kProbeInterval);
  EXPECT_FALSE(chooser.use_two_stages(kCall / 4));  // short calls follow the preference
  // Quiet again: the next probe finds two stages faster and they take over.
  const int quiet = run_calls(chooser, 100, 10e-6, 6e-6);
  EXPECT_GE(quiet, 100 - 2 * (1 + 100 / TwoStageChooser::kProbeInterval));
}

TEST(TwoStageChooser, ShortCallsAreNotTimed) {
  TwoStageChooser chooser;
  // Short calls, however slow, decide nothing: the first timed call still tries two stages.
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(chooser.use_two_stages(TwoStageChooser::kMinTimedSamples - 1));
    chooser.record(true, TwoStageChooser::kMinTimedSamples - 1, 1.0);
  }
  EXPECT_TRUE(chooser.use_two_stages(kCall));
}
