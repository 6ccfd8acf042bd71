// `tts synth-mel`: text → phonemes → acoustic model → log-mel frames, written as .npy (frames ×
// n_mels), the array `tts vocode` takes. Sentences follow each other with no frames between them.
#include <iostream>

#include "commands.h"
#include "tts/engine/voice.h"
#include "tts/frontend/acoustic/acoustic_model.h"
#include "tts/frontend/acoustic/model_files.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/frontend/utf8.h"
#include "tts/kernels/npy.h"

namespace tts::cli {

namespace {
struct SynthMelOptions {
  std::vector<std::string> words;
  std::string output;
  std::string voice;     // a voice (name or folder), or
  std::string acoustic;  // the OUT folder of `tts train acoustic`
  std::string language = "en-us";
  float rate = 1.0f;
};

// Frames of every sentence, one after the other; per-sentence lines on stderr.
kernels::Matrix synthesize_text(const frontend::TextPipeline& text,
                                const frontend::AcousticModel& model, const std::string& input,
                                float rate) {
  std::vector<kernels::Matrix> parts;
  Eigen::Index frames = 0;
  text.process(input, [&](frontend::PhonemizedSentence s) {
    if (s.phonemes.empty()) return;
    frontend::AcousticOutput out =
        model.synthesize(std::vector<int32_t>(s.ids.begin(), s.ids.end()), {rate, 0.0f});
    std::cerr << "sentence " << parts.size() + 1 << ": " << out.mel.cols() << " frames  "
              << s.phonemes << "\n";
    frames += out.mel.cols();
    parts.push_back(std::move(out.mel));
  });
  kernels::Matrix mel(model.features().n_mels, frames);
  Eigen::Index at = 0;
  for (const auto& part : parts) {
    mel.middleCols(at, part.cols()) = part;
    at += part.cols();
  }
  return mel;
}
}  // namespace

void register_synth_mel(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SynthMelOptions>();
  CLI::App* cmd = app.add_subcommand(
      "synth-mel", "Predict the log-mel frames of text with an acoustic model (.npy)");
  cmd->footer(
      "Writes float32 (frames, n_mels), the layout of `tts mel`; `tts vocode FRAMES.npy` speaks\n"
      "it. Give --voice (a voice name or folder) or --acoustic (a `tts train acoustic` OUT).");
  cmd->add_option("text", o->words, "Text to synthesise")->required();
  cmd->add_option("-o,--output", o->output, "Output .npy file")->required();
  auto* voice = cmd->add_option("--voice", o->voice, "Voice name or folder");
  cmd->add_option("--acoustic", o->acoustic, "Acoustic model folder")->excludes(voice);
  cmd->add_option("-l,--lang", o->language, "espeak-ng language (with --acoustic)")
      ->capture_default_str();
  cmd->add_option("--rate", o->rate, "Speaking rate (2 = twice as fast)")
      ->check(CLI::Range(0.25f, 4.0f))
      ->capture_default_str();
  cmd->callback([o, &exit_code] {
    if (o->voice.empty() == o->acoustic.empty())
      throw CLI::ValidationError("synth-mel", "give exactly one of --voice and --acoustic");
    std::string text;
    for (const auto& word : o->words) text += (text.empty() ? "" : " ") + word;
    try {
      frontend::require_valid_utf8(text);
      kernels::Matrix mel;
      if (!o->voice.empty()) {
        const auto v = engine::Voice::load(engine::resolve_voice(o->voice));
        mel = synthesize_text(v->text(), v->acoustic(), text, o->rate);
      } else {
        const auto files = frontend::load_acoustic_files(o->acoustic);
        const auto model = frontend::load_acoustic_model(o->acoustic);
        const frontend::TextPipeline pipeline(o->language, *files.symbols);
        mel = synthesize_text(pipeline, *model, text, o->rate);
      }
      if (mel.cols() == 0) {
        std::cerr << "tts synth-mel: nothing to pronounce in the text\n";
        exit_code = kExitBadInput;
        return;
      }
      // Column-major n_mels × frames is exactly C-order (frames, n_mels).
      kernels::write_npy(
          o->output, mel.data(),
          {static_cast<std::size_t>(mel.cols()), static_cast<std::size_t>(mel.rows())});
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      std::cerr << "tts synth-mel: " << e.what() << "\n";
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace tts::cli
