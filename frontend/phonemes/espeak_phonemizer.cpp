#include <espeak-ng/speak_lib.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <regex>

#include "tts/frontend/phonemizer.h"
#include "tts/frontend/utf8.h"

namespace tts::frontend {

namespace {
// Everything below runs with espeak_lock() held.
bool g_initialized = false;
std::string g_voice;

void terminate_espeak() {
  std::lock_guard<std::mutex> lock(espeak_lock());
  if (g_initialized) espeak_Terminate();
  g_initialized = false;
}

void initialize_espeak() {
  if (g_initialized) return;
  if (espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nullptr, espeakINITIALIZE_DONT_EXIT) < 0)
    throw std::runtime_error(
        "espeak-ng failed to initialise: is its data installed (espeak-ng-data, or "
        "ESPEAK_DATA_PATH)?");
  g_initialized = true;
  g_voice.clear();
  std::atexit(terminate_espeak);  // frees espeak-ng's buffers before leak checkers look
}

// A voice name ("en-us", "de") or, failing that, a language code that several voices speak
// ("en-gb"), checked against the voice that espeak-ng then chose.
bool set_voice(const std::string& language) {
  if (espeak_SetVoiceByName(language.c_str()) == EE_OK) return true;
  espeak_VOICE wanted{};
  wanted.languages = language.c_str();
  if (espeak_SetVoiceByProperties(&wanted) != EE_OK) return false;
  const espeak_VOICE* chosen = espeak_GetCurrentVoice();
  // `languages` is a list of (priority byte, NUL-terminated name), ended by a zero byte.
  for (const char* entry = chosen ? chosen->languages : nullptr; entry && *entry;
       entry += std::strlen(entry + 1) + 2)
    if (language == entry + 1) return true;
  return false;
}

void select_voice(const std::string& language) {
  initialize_espeak();
  if (!language.empty() && g_voice == language) return;
  if (language.empty() || !set_voice(language)) {
    g_voice.clear();
    throw UnknownLanguageError(language);
  }
  g_voice = language;
}

std::string text_to_phonemes(const std::string& text) {
  // Made once and never destroyed (*new): a synthesis still running when its program exits may use
  // it after static destructors have run, until the engine's exit handler stops it.
  static const std::regex& kLanguageSwitch = *new std::regex(R"(\([a-z]{2,3}(?:-[a-z0-9]+)?\))");
  std::string out;
  const void* cursor = text.c_str();
  while (cursor != nullptr) {
    const char* phonemes = espeak_TextToPhonemes(&cursor, espeakCHARS_UTF8, espeakPHONEMES_IPA);
    if (phonemes == nullptr) break;
    std::string clause = std::regex_replace(phonemes, kLanguageSwitch, "");
    for (char& c : clause)
      if (c == '\n' || c == '\t') c = ' ';
    // French (and a few other languages) mark an unstressed word leaning on the next with '-'
    // ("lə- ʒaʁdˈɛ̃", "le-z ˈø"), and Russian writes '"' inside some words ("vˈykɭʲu"tʃʲin",
    // выключен): no sound of their own, and no symbol in the table.
    clause.erase(
        std::remove_if(clause.begin(), clause.end(), [](char c) { return c == '-' || c == '"'; }),
        clause.end());
    if (clause.find_first_not_of(' ') == std::string::npos) continue;
    if (!out.empty()) out += ' ';
    out += clause;
  }
  return out;
}

struct Clause {
  std::string text;
  char punctuation = 0;  // one of kClausePunctuation, or 0
};

// Splits at clause punctuation followed by white space (or closing quotes) or the end, so that
// "3.14", "1,000" and "example.com" stay whole.
std::vector<Clause> split_clauses(std::string_view sentence) {
  std::vector<Clause> clauses(1);
  std::size_t i = 0;
  while (i < sentence.size()) {
    std::size_t start = i;
    char32_t cp = next_code_point(sentence, i);
    char mark = 0;
    if (cp < 0x80 && kClausePunctuation.find(static_cast<char>(cp)) != std::string_view::npos)
      mark = static_cast<char>(cp);
    if (cp == 0x2026) mark = '.';
    std::size_t end = i;
    while (mark && end < sentence.size() &&
           std::string_view(".?!\"')]").find(sentence[end]) != std::string_view::npos)
      ++end;
    bool at_boundary = end == sentence.size() || sentence[end] == ' ';
    if (mark && at_boundary) {
      clauses.back().punctuation = mark;
      clauses.emplace_back();
      i = end;
    } else {
      clauses.back().text.append(sentence.substr(start, i - start));
    }
  }
  return clauses;
}
}  // namespace

UnknownLanguageError::UnknownLanguageError(const std::string& language)
    : std::runtime_error("espeak-ng has no voice for language \"" + language +
                         "\" (espeak-ng --voices lists them)"),
      language_(language) {}

std::mutex& espeak_lock() {
  static std::mutex mutex;
  return mutex;
}

void initialize_espeak_now() {
  std::lock_guard<std::mutex> lock(espeak_lock());
  initialize_espeak();
}

Phonemizer::Phonemizer(std::string language) : language_(language) {
  for (char& c : language_)  // espeak-ng's language codes are lower case: accept "en-GB"
    c = (c == '_') ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::lock_guard<std::mutex> lock(espeak_lock());
  try {
    select_voice(language_);
  } catch (const UnknownLanguageError&) {
    throw UnknownLanguageError(language);
  }
}

std::string Phonemizer::phonemize(std::string_view sentence) const {
  require_valid_utf8(sentence);
  std::vector<Clause> clauses = split_clauses(sentence);
  std::string out;
  std::lock_guard<std::mutex> lock(espeak_lock());
  select_voice(language_);
  for (const Clause& clause : clauses) {
    std::string phonemes = text_to_phonemes(clause.text);
    if (phonemes.empty()) continue;
    if (!out.empty()) out += ' ';
    out += phonemes;
    if (clause.punctuation) out += clause.punctuation;
  }
  return out;
}

}  // namespace tts::frontend
