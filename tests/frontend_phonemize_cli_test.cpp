// `tts phonemize` end to end (skipped when the tts command has not been built).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace {
const std::string kTts = std::string(TTS_BINARY_DIR) + "/tools/tts";

// Runs a shell command; returns its exit code and standard output (stderr folded in with 2>&1).
int run(const std::string& command, std::string& output) {
  output.clear();
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
}  // namespace

TEST(PhonemizeCommand, PrintsPhonemesThenIdsPerSentence) {
  ASSERT_TRUE(std::filesystem::exists(kTts)) << "the tts target is a dependency of this test";
  std::string out;
  ASSERT_EQ(run(kTts + " phonemize 'Hello, world. Bye!'", out), 0) << out;
  EXPECT_EQ(out,
            "h\xC9\x99l\xCB\x88o\xCA\x8A, w\xCB\x88\xC9\x9C\xCB\x90ld.\n"
            "1 17 59 21 170 24 108 5 3 32 170 62 178 21 13 4 2\n"
            "b\xCB\x88"
            "a\xC9\xAA!\n"
            "1 11 170 10 76 7 2\n");
  ASSERT_EQ(run("printf 'One. Two.' | " + kTts + " phonemize --lang de", out), 0) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 4);
}

TEST(PhonemizeCommand, InvalidUtf8IsBadInputNamingTheOffset) {
  ASSERT_TRUE(std::filesystem::exists(kTts)) << "the tts target is a dependency of this test";
  std::string out;
  EXPECT_EQ(run(kTts + " phonemize \"$(printf 'ab\\377c')\" 2>&1", out), 3);
  EXPECT_THAT(out, ::testing::HasSubstr("byte offset 2"));
  EXPECT_EQ(run("printf 'Fine. \\303' | " + kTts + " phonemize 2>&1", out), 3);
  EXPECT_THAT(out, ::testing::HasSubstr("byte offset 6"));
}

TEST(PhonemizeCommand, UnknownLanguageIsBadInput) {
  ASSERT_TRUE(std::filesystem::exists(kTts)) << "the tts target is a dependency of this test";
  std::string out;
  EXPECT_EQ(run(kTts + " phonemize --lang zz-qq hello 2>&1", out), 3);
  EXPECT_THAT(out, ::testing::HasSubstr("\"zz-qq\""));
}

TEST(PhonemizeCommand, SsmlGivesBreaksProsodyAndPhonemesInOrder) {
  std::string plain, out;
  ASSERT_EQ(run(kTts + " phonemize 'Hello.'", plain), 0) << plain;
  ASSERT_EQ(run(kTts + " phonemize --ssml '<speak>Hello. <break time=\"300ms\"/>" +
                    "<prosody rate=\"fast\">Hello.</prosody><phoneme ph=\"tˈɛst\">x</phoneme>" +
                    "</speak>'",
                out),
            0)
      << out;
  // The plain sentence's two lines, the break, the prosody line before the same two lines, then
  // the <phoneme> IPA encoded as given.
  EXPECT_EQ(out, plain + "# break 300 ms\n# prosody rate 1.25 pitch 1 volume 1\n" + plain +
                     "tˈɛst\n1 29 170 61 28 29 2\n");
  // Malformed markup: exit 3 with line and column; unknown elements are reported, not fatal.
  EXPECT_EQ(run(kTts + " phonemize --ssml '<speak><s>unclosed' 2>&1", out), 3);
  EXPECT_NE(out.find("line 1, column"), std::string::npos) << out;
  EXPECT_EQ(run(kTts + " phonemize --ssml '<speak><shout>Hi.</shout></speak>' 2>&1", out), 0);
  EXPECT_NE(out.find("unknown element <shout>"), std::string::npos) << out;
}
