#include "tts/frontend/ssml_pipeline.h"

namespace tts::frontend {

void process_ssml(const SsmlDocument& document, const TextPipeline& pipeline,
                  const SsmlHandlers& handlers) {
  std::string run;  // text of equal prosody, phonemised together so sentences split naturally
  Prosody run_prosody;
  auto flush = [&] {
    if (!run.empty())
      pipeline.process(run,
                       [&](PhonemizedSentence s) { handlers.sentence(std::move(s), run_prosody); });
    run.clear();
  };
  for (const auto& segment : document.segments) {
    switch (segment.kind) {
      case SsmlSegment::Kind::kText:
        if (!(segment.prosody == run_prosody)) flush();
        run_prosody = segment.prosody;
        run += segment.text;
        break;
      case SsmlSegment::Kind::kPhonemes: {
        flush();
        PhonemizedSentence s;
        s.text = s.phonemes = segment.text;
        s.ids = pipeline.symbols().encode(segment.text, segment.text);
        handlers.sentence(std::move(s), segment.prosody);
        break;
      }
      case SsmlSegment::Kind::kBreak:
        flush();
        handlers.pause(segment.break_ms);
        break;
      case SsmlSegment::Kind::kSentenceEnd:
        flush();
        break;
    }
  }
  flush();
}

}  // namespace tts::frontend
