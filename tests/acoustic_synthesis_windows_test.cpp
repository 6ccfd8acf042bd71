// Synthesis decoded window by window (AcousticPass::begin_synthesis, decode_frames,
// synthesis_windows; AcousticModel::synthesize_in_parts): a window's frames are the whole
// utterance's decode within rounding, wherever the window lies, because the decoder reads only
// decoder_context_frames() either side; synthesize() is its windows put together, bit for bit,
// and so is what synthesize_in_parts() hands out, the durations and F0s with the first part.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "temp_folder.h"
#include "tiny_acoustic.h"
#include "tts/acoustic/acoustic_model.h"
#include "tts/acoustic/model_files.h"
#include "tts/acoustic/network.h"
#include "tts/frontend/symbol_table.h"

using namespace tts;
using kernels::Matrix;

namespace {

// A decoder as deep and as wide in time as the bundled voice's (6 blocks of kernel 5, 12 frames
// of context either side), narrow in channels, with durations of about 8 frames a token, so that a
// sentence of 30 tokens has some 240 frames, as a spoken one does.
acoustic::AcousticWeights windowed_weights() {
  acoustic::AcousticConfig c = tts::testing::tiny_acoustic_config();
  c.symbols = static_cast<int>(frontend::SymbolTable::default_table().size());
  c.channels = 12;
  c.decoder_channels = 24;
  c.decoder_blocks = 6;
  c.decoder_kernel = 5;
  c.n_mels = 10;
  acoustic::AcousticWeights w(c);
  w.initialise(7);
  w.parameters().vector(w.layout().duration_output.bias).setConstant(std::log(9.0f));
  return w;
}

std::vector<int32_t> sentence(int tokens) {
  std::vector<int32_t> ids;
  for (int k = 0; k < tokens; ++k) ids.push_back(static_cast<int32_t>((k * 7 + 3) % 40));
  return ids;
}

}  // namespace

TEST(AcousticSynthesisWindows, TheFirstFramesComeAloneThenTheRest) {
  const int context = 12;
  EXPECT_TRUE(acoustic::synthesis_windows(0, context).empty());
  for (int frames : {1, 2, acoustic::kFirstWindowFrames, acoustic::kFirstWindowFrames + context}) {
    const auto w = acoustic::synthesis_windows(frames, context);
    ASSERT_EQ(w.size(), 1u) << frames;
    EXPECT_EQ(w[0].first, 0);
    EXPECT_EQ(w[0].count, frames);
  }
  const auto w = acoustic::synthesis_windows(250, context);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].first, 0);
  EXPECT_EQ(w[0].count, acoustic::kFirstWindowFrames);
  EXPECT_EQ(w[1].first, acoustic::kFirstWindowFrames);
  EXPECT_EQ(w[1].count, 250 - acoustic::kFirstWindowFrames);
}

TEST(AcousticSynthesisWindows, AWindowIsTheWholeDecodeWithinRoundingWhereverItLies) {
  const acoustic::AcousticWeights w = windowed_weights();
  acoustic::AcousticPass pass(w);
  ASSERT_EQ(pass.decoder_context_frames(), 12);
  std::vector<int> durations;
  const int frames = pass.begin_synthesis(sentence(30), 1.0f, 0.0f, durations);
  ASSERT_GT(frames, 200);
  Matrix whole;
  pass.decode_frames(0, frames, whole);  // one window: the decoder over the whole utterance
  ASSERT_EQ(whole.cols(), frames);
  const double spread = (whole.array() - whole.mean()).abs().mean();
  ASSERT_GT(spread, 0.1);  // frames that differ, so a wrong context would show
  for (auto [first, count] :
       std::vector<std::pair<int, int>>{{0, acoustic::kFirstWindowFrames},
                                        {acoustic::kFirstWindowFrames, frames - 32},
                                        {1, 1},
                                        {11, 2},
                                        {12, 30},
                                        {100, 13},
                                        {frames - 13, 13},
                                        {frames - 1, 1}}) {
    Matrix part;
    pass.decode_frames(first, count, part);
    ASSERT_EQ(part.cols(), count);
    const double off = (part - whole.middleCols(first, count)).cwiseAbs().maxCoeff();
    EXPECT_LE(off, 1e-4 * spread) << "frames " << first << ".." << first + count;
  }
  Matrix unused;
  EXPECT_THROW(pass.decode_frames(frames - 1, 2, unused), std::invalid_argument);
  EXPECT_THROW(pass.decode_frames(-1, 2, unused), std::invalid_argument);
  EXPECT_THROW(pass.decode_frames(3, 0, unused), std::invalid_argument);
}

TEST(AcousticSynthesisWindows, SynthesisIsItsWindowsPutTogetherAndThePartsAreTheSame) {
  const acoustic::AcousticWeights w = windowed_weights();
  acoustic::AcousticPass pass(w);
  std::vector<int> durations;
  Matrix mel;
  pass.synthesize(sentence(30), 1.0f, durations, mel);
  std::vector<int> again;
  const int frames = pass.begin_synthesis(sentence(30), 1.0f, 0.0f, again);
  EXPECT_EQ(again, durations);
  ASSERT_EQ(frames, mel.cols());
  for (const acoustic::FrameWindow& window :
       acoustic::synthesis_windows(frames, pass.decoder_context_frames())) {
    Matrix part;
    pass.decode_frames(window.first, window.count, part);
    EXPECT_TRUE(part == mel.middleCols(window.first, window.count)) << window.first;
  }

  // The loaded model hands out the same frames in the same windows.
  testing_support::TempFolder dir;
  kernels::MelConfig features;
  features.n_mels = w.config().n_mels;
  acoustic::save_acoustic_model(dir.path(), w, features, frontend::SymbolTable::default_table());
  const auto model = acoustic::load_acoustic_model(dir.path());
  std::vector<Matrix> parts;
  std::vector<bool> lasts;
  std::vector<int> part_durations;
  model->synthesize_in_parts(sentence(30), {}, [&](acoustic::AcousticOutput part, bool last) {
    if (parts.empty()) part_durations = part.durations;
    EXPECT_EQ(part.durations.empty(), !parts.empty());
    parts.push_back(part.mel);
    lasts.push_back(last);
  });
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(lasts, (std::vector<bool>{false, true}));
  EXPECT_EQ(parts[0].cols(), acoustic::kFirstWindowFrames);
  const acoustic::AcousticOutput out = model->synthesize(sentence(30), {});
  EXPECT_EQ(part_durations, out.durations);
  EXPECT_TRUE(parts[0] == out.mel.leftCols(parts[0].cols()));
  EXPECT_TRUE(parts[1] == out.mel.rightCols(parts[1].cols()));

  // A short sentence is one part.
  parts.clear();
  acoustic::AcousticControls fast;
  fast.rate = 4.0f;
  model->synthesize_in_parts(sentence(3), fast, [&](acoustic::AcousticOutput part, bool last) {
    EXPECT_TRUE(last);
    parts.push_back(part.mel);
  });
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_LE(parts[0].cols(), acoustic::kFirstWindowFrames);
  EXPECT_TRUE(parts[0] == model->synthesize(sentence(3), fast).mel);
}

// On the bundled voice's trained model the windows differ from the whole decode by rounding only:
// the largest difference over a sentence of 60 sounding symbols, in log-mel (natural log) units.
TEST(AcousticSynthesisWindows, TheBundledVoicesWindowsDifferFromItsWholeDecodeByRoundingOnly) {
  const acoustic::AcousticModelFiles files = acoustic::load_acoustic_files(
      std::filesystem::path(TTS_SOURCE_DIR) / "voices" / "default" / "acoustic");
  acoustic::AcousticLossSettings settings;
  settings.symbol_timings = files.symbols->timings();
  std::vector<int32_t> ids;
  for (std::size_t id = 0; id < settings.symbol_timings.size() && ids.size() < 60; ++id)
    if (settings.symbol_timings[id] == frontend::SymbolTiming::kSounds)
      ids.push_back(static_cast<int32_t>(id));
  acoustic::AcousticPass pass(*files.weights, settings);
  std::vector<int> durations;
  const int frames = pass.begin_synthesis(ids, 1.0f, 0.0f, durations);
  const auto windows = acoustic::synthesis_windows(frames, pass.decoder_context_frames());
  ASSERT_EQ(windows.size(), 2u);
  Matrix whole, first, rest;
  pass.decode_frames(0, frames, whole);
  pass.decode_frames(windows[0].first, windows[0].count, first);
  pass.decode_frames(windows[1].first, windows[1].count, rest);
  const double off = std::max((first - whole.leftCols(first.cols())).cwiseAbs().maxCoeff(),
                              (rest - whole.rightCols(rest.cols())).cwiseAbs().maxCoeff());
  std::cout << "  " << frames << " frames; largest difference from the whole decode: " << off
            << " (log-mel)\n";
  EXPECT_LE(off, 1e-4);
}
