// SSML through the text pipeline: the parsed document's text runs are split, normalised and
// phonemised sentence by sentence (runs of equal prosody and language together, each in its
// segment's language of the pipeline's languages), <phoneme> IPA is encoded as given, and <break>s
// are reported. A change of language, like one of prosody, ends a sentence: the text on either
// side is phonemised apart. `tts say` (through the engine) and `tts phonemize --ssml` both
// walk SSML this way.
//
// <mark>s: a mark before a word of a sentence is in that sentence's `marks` at the word's first
// symbol; one after the sentence's last word (before a <break>, </s>, </p> or the end) at its end
// (ids.size()). A mark followed by other text goes with that text, across prosody changes. Marks
// with no sentence around them (between two <break>s, at the very start before a <break>, in a
// sentence with nothing to say) go to `mark`, in order with the sentences and pauses. Every mark of
// the document reaches one of the two exactly once, in document order. The phonemes of a sentence
// with marks are those of the same sentence without them; where espeak-ng fuses two words ("that
// the" is "ðætðə"), a mark between them falls before both (docs/ssml.md).
#pragma once

#include <functional>
#include <string>

#include "tts/frontend/ssml.h"
#include "tts/frontend/text_pipeline.h"

namespace tts::frontend {

struct SsmlHandlers {
  std::function<void(PhonemizedSentence, const Prosody&)> sentence;
  std::function<void(int milliseconds)> pause;        // a <break> (may be 0 ms)
  std::function<void(const std::string& name)> mark;  // a mark outside any sentence (may be empty)
};

// Throws what TextPipeline::process throws, UnknownPhonemeError for <phoneme> IPA the
// pipeline's symbol table does not have, and std::invalid_argument for a document parsed for more
// languages than the pipeline speaks (parse it with pipeline.languages()).
void process_ssml(const SsmlDocument& document, const TextPipeline& pipeline,
                  const SsmlHandlers& handlers);

}  // namespace tts::frontend
