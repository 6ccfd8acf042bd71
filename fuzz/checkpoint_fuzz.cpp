// libFuzzer target for resuming training from a checkpoint (train/common/checkpoint_files.cpp and
// the vocoder's and acoustic model's load_vocoder_checkpoint / load_acoustic_checkpoint). A tiny
// vocoder and a tiny acoustic model each have a valid checkpoint made at start-up (the templates);
// the first input byte chooses which one and which of its two files the rest of the input replaces:
//   0 vocoder checkpoint.json    1 vocoder checkpoint-5.safetensors (checkpoint.json's recorded
//   2 acoustic checkpoint.json   3 acoustic checkpoint-5.safetensors  size and CRC-32 made to fit)
//
// Checks, besides the sanitizers': a load either throws std::runtime_error naming checkpoint.json
// (load_vocoder_checkpoint's promise; nlohmann::json or std::invalid_argument errors escaping are
// bugs) or fills the state, whose tensor layout is the run's; a loaded state saved again loads back
// the same step, seed and bit-identical tensors; the untouched templates load as saved.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_support.h"
#include "tts/acoustic/weights.h"
#include "tts/kernels/file_record.h"
#include "tts/train/acoustic_checkpoint.h"
#include "tts/train/vocoder_checkpoint.h"
#include "tts/vocoder/weights.h"

namespace fs = std::filesystem;
using tts::kernels::ParameterSet;

namespace {

const char* const kWeights = "checkpoint-5.safetensors";

bool same(const ParameterSet& a, const ParameterSet& b) {
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), 4 * a.size()) == 0);
}

void fill(ParameterSet& p, float scale) {
  for (std::size_t i = 0; i < p.size(); ++i)
    p.data()[i] = scale * static_cast<float>(i % 13) - 1.0f;
}

struct Templates {
  tts::train::VocoderTrainingState vocoder;
  tts::train::AcousticTrainingState acoustic;
  fs::path vocoder_dir, acoustic_dir, work;
};

const Templates& templates() {
  static const Templates t = [] {
    Templates t;
    const fs::path root = tts::fuzz::scratch();
    t.vocoder_dir = root / "vocoder-template";
    t.acoustic_dir = root / "acoustic-template";
    t.work = root / "work";

    auto& v = t.vocoder;
    v.config.layers = 2;
    v.config.dilation_cycle = 2;
    v.config.residual_channels = 3;
    v.config.skip_channels = 4;
    v.config.classes = 5;
    v.config.mel_channels = 2;
    v.config.hop_length = 4;
    v.features.n_mels = 2;
    v.features.hop_length = 4;
    v.step = 5;
    v.seed = 7;
    v.weights = tts::vocoder::WaveNetWeights(v.config).parameters();
    fill(v.weights, 0.5f);
    v.ema = v.first_moment = v.second_moment = v.weights;
    fill(v.ema, 0.25f);
    tts::train::save_vocoder_checkpoint(t.vocoder_dir, v);

    auto& a = t.acoustic;
    a.config.symbols = 7;
    a.config.channels = 4;
    a.config.encoder_blocks = 1;
    a.config.encoder_kernel = 3;
    a.config.duration_channels = 3;
    a.config.duration_kernel = 3;
    a.config.decoder_channels = 4;
    a.config.decoder_blocks = 1;
    a.config.decoder_kernel = 3;
    a.config.n_mels = 2;
    a.config.variance_channels = 3;
    a.config.variance_bins = 4;
    a.features.n_mels = 2;
    a.step = 5;
    a.seed = 9;
    a.run_seed = 3;
    a.weights = tts::acoustic::AcousticWeights(a.config).parameters();
    fill(a.weights, 0.5f);
    a.ema = a.first_moment = a.second_moment = a.weights;
    tts::train::save_acoustic_checkpoint(t.acoustic_dir, a);
    return t;
  }();
  return t;
}

// A fresh work folder holding the template's two files.
void reset_work(const fs::path& from, const fs::path& work) {
  std::error_code ignored;
  fs::remove_all(work, ignored);
  fs::create_directories(work);
  for (const char* name : {"checkpoint.json", kWeights}) fs::copy_file(from / name, work / name);
}

// checkpoint.json of the template with the weights file's record made to fit its new bytes.
void refit_record(const fs::path& work) {
  auto j = nlohmann::json::parse(tts::fuzz::read_bytes(work / "checkpoint.json"));
  j["files"] = nlohmann::json::array(
      {tts::kernels::file_record_json(tts::kernels::record_file(work, kWeights))});
  tts::fuzz::write_bytes(work / "checkpoint.json", j.dump(2));
}

template <typename State, typename Load, typename Save>
void check_load(const State& blank, const fs::path& work, Load load, Save save) {
  State state = blank;  // the run's config and layouts, as a resuming trainer has them
  try {
    load(work, state);
  } catch (const std::runtime_error& e) {
    TTS_FUZZ_CHECK(std::string(e.what()).find(work.string()) != std::string::npos);
    return;
  }
  TTS_FUZZ_CHECK(state.weights.size() == blank.weights.size());
  TTS_FUZZ_CHECK(state.ema.size() == blank.ema.size());
  TTS_FUZZ_CHECK(state.first_moment.size() == blank.first_moment.size());
  TTS_FUZZ_CHECK(state.second_moment.size() == blank.second_moment.size());
  // Saved again, it loads back the same.
  const fs::path again = work.string() + "-again";
  std::error_code ignored;
  fs::remove_all(again, ignored);
  save(again, state);
  State back = blank;
  load(again, back);
  TTS_FUZZ_CHECK(back.step == state.step && back.seed == state.seed);
  TTS_FUZZ_CHECK(same(back.weights, state.weights) && same(back.ema, state.ema));
  TTS_FUZZ_CHECK(same(back.first_moment, state.first_moment));
  TTS_FUZZ_CHECK(same(back.second_moment, state.second_moment));
}

}  // namespace

// A state of `state`'s layout with nothing in it: what a load must fill.
template <typename State>
State blank_like(const State& state) {
  State blank = state;
  blank.step = 0;
  blank.seed = 0;
  blank.weights.set_zero();
  blank.ema = blank.first_moment = blank.second_moment = blank.weights;
  return blank;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Templates& t = templates();
  const int mode = data[0] % 4;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool acoustic = mode >= 2;
  reset_work(acoustic ? t.acoustic_dir : t.vocoder_dir, t.work);
  if (mode % 2 == 0) {
    tts::fuzz::write_bytes(t.work / "checkpoint.json", rest);
  } else {
    tts::fuzz::write_bytes(t.work / kWeights, rest);
    refit_record(t.work);
  }

  if (!acoustic) {
    check_load(
        blank_like(t.vocoder), t.work,
        [](const fs::path& dir, tts::train::VocoderTrainingState& s) {
          tts::train::load_vocoder_checkpoint(dir, s);
        },
        [](const fs::path& dir, const tts::train::VocoderTrainingState& s) {
          tts::train::save_vocoder_checkpoint(dir, s);
        });
  } else {
    check_load(
        blank_like(t.acoustic), t.work,
        [](const fs::path& dir, tts::train::AcousticTrainingState& s) {
          tts::train::load_acoustic_checkpoint(dir, s);
        },
        [](const fs::path& dir, const tts::train::AcousticTrainingState& s) {
          tts::train::save_acoustic_checkpoint(dir, s);
        });
  }
  return 0;
}

// The templates, as saved, load back as they were (checked once, at start-up).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const Templates& t = templates();
  reset_work(t.vocoder_dir, t.work);
  tts::train::VocoderTrainingState v = t.vocoder;
  v.weights.set_zero();
  tts::train::load_vocoder_checkpoint(t.work, v);
  TTS_FUZZ_CHECK(v.step == 5 && v.seed == 7 && same(v.weights, t.vocoder.weights) &&
                 same(v.ema, t.vocoder.ema));
  reset_work(t.acoustic_dir, t.work);
  tts::train::AcousticTrainingState a = t.acoustic;
  a.weights.set_zero();
  tts::train::load_acoustic_checkpoint(t.work, a);
  TTS_FUZZ_CHECK(a.step == 5 && a.seed == 9 && a.run_seed == 3 &&
                 same(a.weights, t.acoustic.weights));
  tts::fuzz::write_seed("vocoder_json", 0, t.vocoder_dir / "checkpoint.json");
  tts::fuzz::write_seed("vocoder_weights", 1, t.vocoder_dir / kWeights);
  tts::fuzz::write_seed("acoustic_json", 2, t.acoustic_dir / "checkpoint.json");
  tts::fuzz::write_seed("acoustic_weights", 3, t.acoustic_dir / kWeights);
  return 0;
}
