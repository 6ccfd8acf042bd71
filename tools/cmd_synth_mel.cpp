// `tts synth-mel`: text → phonemes → acoustic model → log-mel frames, written as .npy (frames ×
// n_mels), the array `tts vocode` takes. Sentences follow each other with no frames between them.
// With --timings it also writes each symbol's predicted duration: what lip-sync and subtitle
// tools need, and what a listener's complaint ("the" heard as "this") is checked against.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "output_files.h"
#include "tts/acoustic/acoustic_model.h"
#include "tts/acoustic/model_files.h"
#include "tts/engine/voice.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/frontend/utf8.h"
#include "tts/kernels/atomic_file.h"
#include "tts/kernels/npy.h"

namespace tts::cli {

namespace {
struct SynthMelOptions {
  std::vector<std::string> words;
  std::string output;
  std::string timings;   // optional TSV of every symbol's frames
  std::string voice;     // a voice (name or folder), or
  std::string acoustic;  // the OUT folder of `tts train acoustic`
  std::string language = "en-us";
  float rate = 1.0f;
  float pitch = 0.0f;  // semitones
};

// One TSV row per input id: the sentence (from 1), the id's position in it, the symbol (BOS "^",
// EOS "$" and the word boundary "|" spelled so a row never holds bare white space), its frames,
// its span in seconds from the start of the output, and the F0 the model gives it in Hz (the
// shift included; 0 for a model that does not predict pitch, and for a symbol without frames, which
// is not heard). Spans tile the output: each starts where the previous ended.
void append_timings(std::ostringstream& tsv, int sentence, const std::vector<int>& ids,
                    const acoustic::AcousticOutput& out, const frontend::SymbolTable& symbols,
                    const kernels::MelConfig& features, Eigen::Index first_frame) {
  const std::vector<int>& durations = out.durations;
  const double seconds_per_frame =
      static_cast<double>(features.hop_length) / static_cast<double>(features.sample_rate);
  Eigen::Index frame = first_frame;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string& name = symbols.symbol(ids[i]);
    const std::string shown = name == frontend::SymbolTable::kWordBoundary ? "|" : name;
    tsv << sentence << '\t' << i << '\t' << shown << '\t' << durations[i] << '\t' << std::fixed
        << std::setprecision(4) << static_cast<double>(frame) * seconds_per_frame << '\t'
        << static_cast<double>(frame + durations[i]) * seconds_per_frame << '\t'
        << std::setprecision(1) << (durations[i] > 0 && i < out.f0_hz.size() ? out.f0_hz[i] : 0.0f)
        << '\n';
    frame += durations[i];
  }
}

// Frames of every sentence, one after the other; per-sentence lines on stderr. `timings`, when
// given, receives the TSV rows of append_timings.
kernels::Matrix synthesize_text(const frontend::TextPipeline& text,
                                const frontend::SymbolTable& symbols,
                                const acoustic::AcousticModel& model, const std::string& model_name,
                                const std::string& input, float rate, float pitch,
                                std::ostringstream* timings) {
  std::vector<kernels::Matrix> parts;
  Eigen::Index frames = 0;
  text.process(input, [&](frontend::PhonemizedSentence s) {
    if (s.phonemes.empty()) return;
    acoustic::AcousticOutput out =
        model.synthesize(std::vector<int32_t>(s.ids.begin(), s.ids.end()), {rate, pitch});
    if (!out.mel.allFinite())  // finite weights can overflow: no NaN frames for `tts vocode`
      throw std::runtime_error(model_name +
                               ": the acoustic model gives frames that are not finite numbers "
                               "(its weights overflow); it is damaged and cannot speak");
    const int sentence = static_cast<int>(parts.size()) + 1;
    std::cerr << "sentence " << sentence << ": " << out.mel.cols() << " frames  " << s.phonemes
              << "\n";
    if (timings) append_timings(*timings, sentence, s.ids, out, symbols, model.features(), frames);
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
  cmd->add_option("--timings", o->timings,
                  "Also write each phoneme's frames, span in seconds and F0 (TSV: sentence, index, "
                  "symbol, frames, start_s, end_s, f0_hz; | is a word boundary, ^ and $ the "
                  "sentence's edges; f0_hz 0 where the model has no pitch or the symbol no "
                  "frames)");
  auto* voice = cmd->add_option("--voice", o->voice, "Voice name or folder");
  cmd->add_option("--acoustic", o->acoustic, "Acoustic model folder")->excludes(voice);
  cmd->add_option("-l,--lang", o->language, "espeak-ng language (with --acoustic)")
      ->capture_default_str();
  cmd->add_option("--rate", o->rate, "Speaking rate (2 = twice as fast)")
      ->check(CLI::Range(0.25f, 4.0f))
      ->capture_default_str();
  cmd->add_option("--pitch", o->pitch, "Pitch shift in semitones (a model that predicts pitch)")
      ->check(CLI::Range(-24.0f, 24.0f))
      ->capture_default_str();
  cmd->callback([o, &exit_code] {
    if (o->voice.empty() == o->acoustic.empty())
      throw CLI::ValidationError("synth-mel", "give exactly one of --voice and --acoustic");
    if (const auto twice = output_named_twice({{"-o", o->output}, {"--timings", o->timings}}))
      throw CLI::ValidationError("synth-mel", *twice);
    std::string text;
    for (const auto& word : o->words) text += (text.empty() ? "" : " ") + word;
    try {
      frontend::require_valid_utf8(text);
      kernels::Matrix mel;
      std::ostringstream timings;
      timings << "sentence\tindex\tsymbol\tframes\tstart_s\tend_s\tf0_hz\n";
      std::ostringstream* timings_sink = o->timings.empty() ? nullptr : &timings;
      if (!o->voice.empty()) {
        const auto v = engine::Voice::load(engine::resolve_voice(o->voice));
        mel = synthesize_text(v->text(), v->symbols(), v->acoustic(),
                              "voice \"" + v->info().name + "\"", text, o->rate, o->pitch,
                              timings_sink);
      } else {
        const auto files = acoustic::load_acoustic_files(o->acoustic);
        const auto model = acoustic::load_acoustic_model(o->acoustic);
        const frontend::TextPipeline pipeline(o->language, *files.symbols);
        mel = synthesize_text(pipeline, *files.symbols, *model, o->acoustic, text, o->rate,
                              o->pitch, timings_sink);
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
      if (timings_sink) kernels::write_file_atomically(o->timings, timings.str());
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      std::cerr << "tts synth-mel: " << frontend::printable(e.what()) << "\n";
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace tts::cli
