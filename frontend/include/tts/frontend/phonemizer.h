// Phonemisation through libespeak-ng, in IPA.
//
// Output format of one sentence: espeak-ng's IPA with its stress marks (ˈ ˌ) and length marks,
// words separated by one space, and the clause punctuation of the text (. , ? ! ; :) kept as a
// token right after the clause's last phoneme, e.g. "həlˈoʊ, wˈɜːld." An ellipsis becomes ".",
// "?!" becomes "?". espeak-ng's language-switch markers such as "(en)" are removed, and so is the
// '-' it puts after a word that leans on the next (French "lə- ʒaʁdˈɛ̃", "le-z ˈø") and the '"'
// it writes inside some Russian words ("выключен").
//
// Thread-safety: libespeak-ng keeps global state and is not thread-safe, so every call into it in
// this program goes through one process-wide lock (espeak_lock()); a Phonemizer may be shared by
// any number of threads, which then take turns. The rest of the frontend (sentence splitting,
// normalisation, symbol tables) holds no shared mutable state and runs fully in parallel.
#pragma once

#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tts::frontend {

class UnknownLanguageError : public std::runtime_error {
 public:
  explicit UnknownLanguageError(const std::string& language);
  const std::string& language() const { return language_; }

 private:
  std::string language_;
};

// The clause punctuation kept as prosody hints, in the order of the default symbol table.
inline constexpr std::string_view kClausePunctuation = ".,?!;:";

class Phonemizer {
 public:
  // `language` is an espeak-ng voice name such as "en-us", "en-gb", "de", "es" (`espeak-ng
  // --voices` lists them; case-insensitive, "_" reads as "-"). Throws UnknownLanguageError
  // (naming `language` as given) if espeak-ng has no such voice, and
  // std::runtime_error if espeak-ng cannot initialise (its data folder is missing).
  explicit Phonemizer(std::string language = "en-us");

  const std::string& language() const { return language_; }

  // IPA of one sentence (UTF-8). Empty if the sentence has nothing to pronounce.
  std::string phonemize(std::string_view sentence) const;

 private:
  std::string language_;
};

// The lock that serialises every call into libespeak-ng; hold it for any other direct use.
std::mutex& espeak_lock();

// Initialises libespeak-ng now instead of at the first phonemize. Initialising registers an exit
// handler that frees espeak-ng's buffers; code whose own exit handler must run before that one
// (the engine's, which stops syntheses still running when a program exits) calls this first.
// Throws std::runtime_error when espeak-ng's data is missing.
void initialize_espeak_now();

}  // namespace tts::frontend
