// `tts phonemize`: text to phonemes and phoneme ids, one sentence at a time.
#include <iostream>

#include "commands.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/frontend/utf8.h"

namespace tts::cli {

namespace {
struct PhonemizeOptions {
  std::vector<std::string> words;
  std::string language = "en-us";
};

void print(const frontend::PhonemizedSentence& sentence) {
  std::cout << sentence.phonemes << "\n";
  for (std::size_t i = 0; i < sentence.ids.size(); ++i)
    std::cout << (i ? " " : "") << sentence.ids[i];
  std::cout << "\n" << std::flush;
}
}  // namespace

void register_phonemize(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PhonemizeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "phonemize", "Print the phonemes and phoneme ids of text, sentence by sentence");
  cmd->footer(
      "Output: two lines per sentence. The first is espeak-ng's IPA with stress marks, one space\n"
      "between words and the clause punctuation . , ? ! ; : kept after its clause; the second is\n"
      "the phoneme ids of the default symbol table, space-separated, from BOS (1) to EOS (2).\n"
      "Without TEXT, reads UTF-8 text from standard input and prints each sentence as soon as it\n"
      "is complete. English text is normalised first (currency, times, units, URLs, ...).\n"
      "Exit code 3 for invalid UTF-8 (the message names the byte offset) or an unknown language.");
  cmd->add_option("text", options->words, "Text to phonemize (default: standard input)");
  cmd->add_option("-l,--lang", options->language, "espeak-ng language, e.g. en-us, en-gb, de, es")
      ->capture_default_str();
  cmd->callback([options, &exit_code] {
    try {
      frontend::TextPipeline pipeline(options->language);
      if (options->words.empty()) {
        pipeline.process(std::cin, print);
      } else {
        std::string text;
        for (const auto& word : options->words) text += (text.empty() ? "" : " ") + word;
        frontend::require_valid_utf8(text);
        pipeline.process(text, print);
      }
      exit_code = kExitOk;
    } catch (const frontend::InvalidUtf8Error& e) {
      std::cerr << "tts phonemize: " << e.what() << "\n";
      exit_code = kExitBadInput;
    } catch (const frontend::UnknownLanguageError& e) {
      std::cerr << "tts phonemize: " << e.what() << "\n";
      exit_code = kExitBadInput;
    } catch (const frontend::UnknownPhonemeError& e) {
      std::cerr << "tts phonemize: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
  });
}

}  // namespace tts::cli
