#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tts/frontend/symbol_table.h"
#include "tts/frontend/text_pipeline.h"

using namespace tts::frontend;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SymbolTable, DefaultTableReservesSpecialIds) {
  const SymbolTable& table = SymbolTable::default_table();
  EXPECT_EQ(table.symbol(SymbolTable::kPadId), "_");
  EXPECT_EQ(table.bos_id(), 1);
  EXPECT_EQ(table.eos_id(), 2);
  EXPECT_EQ(table.word_boundary_id(), 3);
  EXPECT_EQ(table.id("."), 4);
  EXPECT_EQ(table.id(":"), 9);
  EXPECT_EQ(table.id("a"), 10);
  EXPECT_TRUE(table.id("\xCB\x88"));  // primary stress
  EXPECT_TRUE(table.id("\xCB\x90"));  // length
  EXPECT_TRUE(table.id("\xC3\xA6"));  // ae
}

TEST(SymbolTable, JsonRoundTrip) {
  auto table =
      SymbolTable::from_json_text(R"({"symbols": ["_", "^", "$", " ", "a", "t\u0283", "t"]})");
  EXPECT_EQ(table.size(), 7u);
  EXPECT_EQ(SymbolTable::from_json(table.to_json()).to_json(), table.to_json());
  // Longest match: "tʃ" is one symbol, "t" another.
  EXPECT_THAT(table.tokenize("t\xCA\x83"
                             "at"),
              ElementsAre("t\xCA\x83", "a", "t"));
  EXPECT_THAT(table.encode("t\xCA\x83"
                           "a t",
                           "x"),
              ElementsAre(1, 5, 4, 3, 6, 2));
}

TEST(SymbolTable, RejectsBrokenTables) {
  auto message = [](const std::string& json) {
    try {
      SymbolTable::from_json_text(json);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("{"), HasSubstr("does not parse"));
  EXPECT_THAT(message(R"({"phonemes": []})"), HasSubstr("\"symbols\" array"));
  EXPECT_THAT(message(R"({"symbols": ["^", "_", "$", " "]})"), HasSubstr("pad"));
  EXPECT_THAT(message(R"({"symbols": ["_", "^", " "]})"), HasSubstr("EOS"));
  EXPECT_THAT(message(R"({"symbols": ["_", "^", "$", " ", "a", "a"]})"), HasSubstr("entry 5"));
  EXPECT_THAT(message(R"({"symbols": ["_", "^", "$", " ", ""]})"), HasSubstr("empty"));
  EXPECT_THAT(message(R"({"symbols": ["_", "^", "$", " ", 7]})"), HasSubstr("not a string"));
}

TEST(SymbolTable, UnknownPhonemesAreReportedNeverDropped) {
  auto table = SymbolTable::from_json_text(R"({"symbols": ["_", "^", "$", " ", "a"]})");
  std::vector<std::string> unknown;
  auto ids = table.encode("ab\xC9\x99 b", unknown);
  EXPECT_THAT(ids, ElementsAre(1, 4, 3, 2));
  EXPECT_THAT(unknown, ElementsAre("b", "\xC9\x99"));
  try {
    table.encode("ab", "The sentence.");
    FAIL() << "no exception";
  } catch (const UnknownPhonemeError& e) {
    EXPECT_THAT(e.symbols(), ElementsAre("b"));
    EXPECT_EQ(e.sentence(), "The sentence.");
    EXPECT_THAT(e.what(), HasSubstr("\"b\" (U+0062)"));
    EXPECT_THAT(e.what(), HasSubstr("The sentence."));
  }
}

// Pins the phoneme strings and ids of English, German and Spanish sentences (espeak-ng 1.51).
TEST(SymbolTable, GoldenPhonemesAndIds) {
  std::ifstream in(std::string(TTS_TEST_DATA_DIR) + "/frontend/golden_phonemes.tsv");
  ASSERT_TRUE(in);
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream row(line);
    for (std::string field; std::getline(row, field, '\t');) fields.push_back(field);
    ASSERT_EQ(fields.size(), 4u) << line;
    std::vector<int> want;
    std::stringstream ids(fields[3]);
    for (int id; ids >> id;) want.push_back(id);
    std::vector<PhonemizedSentence> got;
    TextPipeline(fields[0]).process(fields[1], [&](PhonemizedSentence s) { got.push_back(s); });
    ASSERT_EQ(got.size(), 1u) << fields[1];
    EXPECT_EQ(got[0].phonemes, fields[2]) << fields[0] << ": " << fields[1];
    EXPECT_EQ(got[0].ids, want) << fields[0] << ": " << fields[1];
    ++cases;
  }
  EXPECT_EQ(cases, 10);
}

TEST(SymbolTable, TimingOfSymbolsDecidesTheirFrames) {
  using tts::frontend::SymbolTable;
  using tts::frontend::SymbolTiming;
  // Phones sound, whatever their script; a multi-code-point phone sounds if any part is a letter.
  for (const char* phone : {"a", "z", "ɜ", "ŋ", "æ", "tʃ", "ɾ̃"})
    EXPECT_EQ(SymbolTable::timing_of(phone), SymbolTiming::kSounds) << phone;
  // Where the speaker may or may not pause: at clause punctuation most of all.
  for (const char* pause : {"_", "^", "$", " "})
    EXPECT_EQ(SymbolTable::timing_of(pause), SymbolTiming::kMayPause) << pause;
  for (const char* pause : {".", ",", "?", "!", ";", ":"})
    EXPECT_EQ(SymbolTable::timing_of(pause), SymbolTiming::kClausePause) << pause;
  // Marks that colour a neighbour: stress, length, aspiration, nasalisation, a tie bar.
  for (const char* mark : {"ˈ", "ˌ", "ː", "ʰ", "\xCC\x83", "\xCD\xA1"})
    EXPECT_EQ(SymbolTable::timing_of(mark), SymbolTiming::kNoTime) << mark;
  // The table's timings follow its symbols, id by id.
  const SymbolTable& table = SymbolTable::default_table();
  ASSERT_EQ(table.timings().size(), table.size());
  for (std::size_t id = 0; id < table.size(); ++id)
    EXPECT_EQ(table.timings()[id], SymbolTable::timing_of(table.symbol(static_cast<int>(id))));
  EXPECT_EQ(table.timings()[static_cast<std::size_t>(*table.id("ˈ"))], SymbolTiming::kNoTime);
  EXPECT_EQ(table.timings()[static_cast<std::size_t>(table.word_boundary_id())],
            SymbolTiming::kMayPause);
}
