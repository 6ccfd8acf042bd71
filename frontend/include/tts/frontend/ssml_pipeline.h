// SSML through the text pipeline: the parsed document's text runs are split, normalised and
// phonemised sentence by sentence (runs of equal prosody together), <phoneme> IPA is encoded as
// given, and <break>s are reported. `tts say` (through the engine) and `tts phonemize --ssml` both
// walk SSML this way.
#pragma once

#include <functional>

#include "tts/frontend/ssml.h"
#include "tts/frontend/text_pipeline.h"

namespace tts::frontend {

struct SsmlHandlers {
  std::function<void(PhonemizedSentence, const Prosody&)> sentence;
  std::function<void(int milliseconds)> pause;  // a <break> (may be 0 ms)
};

// Throws what TextPipeline::process throws, and UnknownPhonemeError for <phoneme> IPA the
// pipeline's symbol table does not have.
void process_ssml(const SsmlDocument& document, const TextPipeline& pipeline,
                  const SsmlHandlers& handlers);

}  // namespace tts::frontend
