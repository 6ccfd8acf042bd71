// The five languages through normalisation and libespeak-ng: sentences to the IPA espeak-ng 1.51
// gives for the same sentence written out by hand (the expected phonemes below are espeak-ng's
// reading of hand-written words, `espeak-ng -q --ipa -v LANG "WORDS"`, not of our normaliser's
// output); English's reliance on espeak-ng's own number reading; and one symbol table for all:
// a paragraph in each language phonemises into symbols the default table has.
#include <gtest/gtest.h>

#include <set>

#include "tts/frontend/normalizer.h"
#include "tts/frontend/phonemizer.h"
#include "tts/frontend/symbol_table.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/frontend/utf8.h"

using namespace tts::frontend;

namespace {

bool have_voice(const char* voice) {
  try {
    Phonemizer p(voice);
    return true;
  } catch (const UnknownLanguageError&) {
    return false;
  }
}

#define REQUIRE_VOICE(voice) \
  if (!have_voice(voice)) GTEST_SKIP() << "espeak-ng has no voice " << voice << " here"

std::string phonemes_of(const char* voice, const std::string& text) {
  return Phonemizer(voice).phonemize(normalize_text(text, voice));
}

// Without stress marks and word boundaries: the sounds alone.
std::string sounds(std::string ipa) {
  std::string out;
  for (std::size_t i = 0; i < ipa.size();) {
    const std::size_t start = i;
    const char32_t cp = next_code_point(ipa, i);
    if (cp == ' ' || cp == 0x2C8 || cp == 0x2CC) continue;  // space, ˈ, ˌ
    out.append(ipa, start, i - start);
  }
  return out;
}
}  // namespace

TEST(LanguagePhonemes, SpanishSentence) {
  REQUIRE_VOICE("es-419");
  EXPECT_EQ(phonemes_of("es-419", "El Sr. García pagó 3,50 € el 15/03/2024 a las 14:30"),
            "el seɲˈoɾ ɣaɾsˈia paɣˈo tɾˈes ˈeʊɾos kon sinkwˈɛnta sˈentimos el kˈinse ðe mˈaɾso "
            "ðe ðˈos mˈil βˌeɪntikwˈatɾo a las katˈoɾse tɾˈeɪnta");
  // "veintiuna" (before a feminine noun) and "dieciséis" as words; espeak-ng's reading of the
  // digits differs from them ([bˌeɪntiˈuno], [djˌɛsisˈeɪs]), which is why Spanish spells every
  // number itself.
  EXPECT_EQ(phonemes_of("es-419", "Hay 21 casas y 16 coches"),
            "ˈaɪ βeɪntjˈuna kˈasas i ðjˌesisˈeis kˈotʃes");
  EXPECT_NE(Phonemizer("es-419").phonemize("16"), Phonemizer("es-419").phonemize("dieciséis"));
}

TEST(LanguagePhonemes, FrenchSentence) {
  REQUIRE_VOICE("fr-fr");
  EXPECT_EQ(phonemes_of("fr-fr", "M. Dupont a payé 3,50 € le 15/03/2024 à 14h30"),
            "məsjˈø dypˈɔ̃t a pɛjˈe tʁwˈaz øʁˈo sɛ̃kˈɑ̃t lə kˈɛ̃z mˈaʁs dˈø mˈil vˈɛ̃tkˈatʁ a "
            "katˈɔʁz ˈœʁ tʁˈɑ̃t");
  EXPECT_EQ(phonemes_of("fr-fr", "80 et 71"), "kˈatʁvˈɛ̃z e swasˈɑ̃t e ˈɔ̃z");
  EXPECT_NE(Phonemizer("fr-fr").phonemize("80"), Phonemizer("fr-fr").phonemize("quatre-vingts"));
}

TEST(LanguagePhonemes, ItalianSentence) {
  REQUIRE_VOICE("it");
  EXPECT_EQ(phonemes_of("it", "Il Sig. Rossi ha pagato 3,50 € il 15/03/2024 alle 14:30"),
            "il siɲˈor rˈossɪ a paɡˈato trˈe ˈɛʊro e tʃinkwˈanta tʃentˈɛzimɪ il kwˈinditʃɪ "
            "mˈartso dʊemilaventikwˈatːro ˌalle kwatːˈorditʃɪ e trˈenta");
  EXPECT_NE(Phonemizer("it").phonemize("2024"), Phonemizer("it").phonemize("duemilaventiquattro"));
}

TEST(LanguagePhonemes, RussianSentence) {
  REQUIRE_VOICE("ru");
  EXPECT_EQ(phonemes_of("ru", "Он заплатил 3,50 € 15.03.2024 в 14:30"),
            "ˈon zʌpɭatʲˈiɭ trʲˈɪ jˈevrʌ pʲʌtʲdʲisʲˈɑt tsˈɛntʌf pʲatnˈɑdtsʌtʌjɪ mˈɑrta dvʲˈe "
            "tˈysʲʌtʃʲɪ dvˈɑdtsʌtʲ tʃʲitvʲˈɵrtʌvʌ ɡˈoda f tʃʲitˈyrnʌdtsʌtʲ trʲˈidtsʌtʲ");
}

// English leaves plain numbers, decimals, ordinals and percentages to espeak-ng: its reading of the
// digits has the sounds of the words written out (only stress and word joins differ).
TEST(LanguagePhonemes, EnglishNumbersReadByEspeakSoundLikeTheWords) {
  REQUIRE_VOICE("en-us");
  const std::pair<const char*, const char*> kPairs[] = {
      {"21", "twenty one"},
      {"16", "sixteen"},
      {"1234", "one thousand two hundred thirty four"},
      {"1,000,000", "one million"},
      {"2,500,017", "two million five hundred thousand seventeen"},
      {"3.5", "three point five"},
      {"0.25", "zero point two five"},
      {"75%", "seventy five percent"},
      {"4th", "fourth"},
      {"21st", "twenty first"}};
  for (auto [digits, words] : kPairs)
    EXPECT_EQ(sounds(phonemes_of("en-us", digits)), sounds(phonemes_of("en-us", words)))
        << digits << " / " << words;
}

TEST(LanguagePhonemes, OneSymbolTableCoversEveryLanguage) {
  const std::pair<const char*, const char*> kParagraphs[] = {
      {"en-us",
       "The quick brown fox jumps over the lazy dog. She sells seashells by the seashore; "
       "thousands of people measure the vision, the judge's joy, and the thought that rhythm "
       "matters."},
      {"es-419",
       "El veloz murciélago hindú comía feliz cardillo y kiwi. La cigüeña tocaba el saxofón "
       "detrás del palenque de paja. Llueve en Jerez; el niño añora la guitarra, y yo quiero ver "
       "a mi gente el 15/03/2024 a las 14:30 por 3,50 €."},
      {"fr-fr",
       "Portez ce vieux whisky au juge blond qui fume. Les œufs, le bœuf et l'agneau sont dans "
       "le jardin ; un grand vin rouge, une brune, huit cents gens heureux et la nuit qui tombe "
       "le 1er mai à 14h30."},
      {"it",
       "Quel vituperabile xenofobo zelante assaggia il whisky ed esclama: alleluja! Gli gnocchi "
       "della nonna sono buoni; la zanzara vola sul ghiaccio, e il sole scende nella valle alle "
       "21:15."},
      {"ru",
       "Съешь же ещё этих мягких французских булок, да выпей чаю. В чащах юга жил бы цитрус? "
       "Да, но фальшивый экземпляр! Щука, ёжик и шёлковый шарф лежат у подъезда с 2024 года. "
       "Ваш микрофон выключен."}};
  for (auto [voice, paragraph] : kParagraphs) {
    if (!have_voice(voice)) {
      ADD_FAILURE() << "espeak-ng has no voice " << voice;
      continue;
    }
    TextPipeline pipeline(voice);
    std::set<std::string> unknown;
    std::size_t sentences = 0;
    const std::string voice_name = voice;  // a lambda may not capture a structured binding (C++17)
    pipeline.process(paragraph, [&](PhonemizedSentence s) {
      ++sentences;
      std::vector<std::string> missing;
      SymbolTable::default_table().encode(s.phonemes, missing);
      unknown.insert(missing.begin(), missing.end());
      EXPECT_GT(s.ids.size(), 10u) << voice_name << ": " << s.text;
    });
    EXPECT_GE(sentences, 2u) << voice;
    EXPECT_TRUE(unknown.empty()) << voice << ": " << *unknown.begin();
  }
}
