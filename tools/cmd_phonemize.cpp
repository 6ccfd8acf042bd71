// `tts phonemize`: text to phonemes and phoneme ids, one sentence at a time.
#include <iostream>
#include <iterator>

#include "commands.h"
#include "tts/frontend/ssml_pipeline.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/frontend/utf8.h"

namespace tts::cli {

namespace {
struct PhonemizeOptions {
  std::vector<std::string> words;
  std::string language = "en-us";
  bool ssml = false;
};

void print(const frontend::PhonemizedSentence& sentence) {
  std::cout << sentence.phonemes << "\n";
  for (std::size_t i = 0; i < sentence.ids.size(); ++i)
    std::cout << (i ? " " : "") << sentence.ids[i];
  std::cout << "\n" << std::flush;
}
// SSML: the sentences as above, with "# prosody ..." before a sentence whose prosody is not the
// default and "# break N ms" for each <break>; the parser's warnings go to stderr.
void print_ssml(const std::string& markup, const frontend::TextPipeline& pipeline) {
  const frontend::SsmlDocument document = frontend::parse_ssml(markup, pipeline.languages());
  for (const auto& warning : document.warnings)
    std::cerr << "tts phonemize: " << frontend::printable(warning) << "\n";
  frontend::SsmlHandlers handlers;
  handlers.sentence = [](frontend::PhonemizedSentence s, const frontend::Prosody& p) {
    if (!(p == frontend::Prosody{}))
      std::cout << "# prosody rate " << p.rate << " pitch " << p.pitch << " volume " << p.volume
                << "\n";
    print(s);
  };
  handlers.pause = [](int ms) { std::cout << "# break " << ms << " ms\n"; };
  frontend::process_ssml(document, pipeline, handlers);
}

std::string read_all(std::istream& in) {
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
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
      "is complete. English, Spanish, French, Italian and Russian text is normalised first\n"
      "(numbers, dates, times, currency, abbreviations, ...; docs/languages.md); text in other\n"
      "languages is left to espeak-ng's own rules.\n"
      "With --ssml the text is SSML: lines \"# break N ms\" mark <break>s and \"# prosody rate R\n"
      "pitch P volume V\" precedes a sentence spoken with other than the default prosody.\n"
      "Exit code 3 for invalid UTF-8 (the message names the byte offset) or an unknown language.");
  cmd->add_option("text", options->words, "Text to phonemize (default: standard input)");
  cmd->add_option("-l,--lang", options->language, "espeak-ng language, e.g. en-us, en-gb, de, es")
      ->capture_default_str();
  cmd->add_flag("--ssml", options->ssml, "The text is SSML (<speak>...</speak>)");
  cmd->callback([options, &exit_code] {
    try {
      frontend::TextPipeline pipeline(options->language);
      if (options->ssml) {
        std::string markup;
        for (const auto& word : options->words) markup += (markup.empty() ? "" : " ") + word;
        if (options->words.empty()) markup = read_all(std::cin);
        frontend::require_valid_utf8(markup);
        print_ssml(markup, pipeline);
      } else if (options->words.empty()) {
        pipeline.process(std::cin, print);
      } else {
        std::string text;
        for (const auto& word : options->words) text += (text.empty() ? "" : " ") + word;
        frontend::require_valid_utf8(text);
        pipeline.process(text, print);
      }
      exit_code = kExitOk;
    } catch (const frontend::InvalidUtf8Error& e) {
      std::cerr << "tts phonemize: " << frontend::printable(e.what()) << "\n";
      exit_code = kExitBadInput;
    } catch (const frontend::UnknownLanguageError& e) {
      std::cerr << "tts phonemize: " << frontend::printable(e.what()) << "\n";
      exit_code = kExitBadInput;
    } catch (const frontend::SsmlError& e) {
      std::cerr << "tts phonemize: " << frontend::printable(e.what()) << "\n";
      exit_code = kExitBadInput;
    } catch (const frontend::UnknownPhonemeError& e) {
      std::cerr << "tts phonemize: " << frontend::printable(e.what()) << "\n";
      exit_code = kExitFailure;
    }
  });
}

}  // namespace tts::cli
