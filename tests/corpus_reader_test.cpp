// What the trainers' corpus reader (tts/train/audio_corpus.h) refuses: rows with more fields than
// "id|text|normalised", FIFOs and other special files where recordings or metadata.csv should be
// (never opened, so they cannot hang a run), symlink loops (a warning naming the row, not a
// filesystem_error ending the run), and corpora with nothing to train on, each saying why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "temp_folder.h"
#include "tts/train/audio_corpus.h"

namespace fs = std::filesystem;
using namespace tts;
using ::testing::HasSubstr;

namespace {

const fs::path kClip = "/usr/share/sounds/alsa/Front_Center.wav";  // alsa-utils: a real voice

void make_fifo(const fs::path& path) { ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << path; }

// Runs `read` on a thread of its own and waits at most 20 s: what it threw ("" when it returned),
// or "timed out" when it blocked, so that a reader hanging on a FIFO fails the test instead of
// hanging it. A blocked thread is left behind, detached, to end with the process.
std::string outcome_within_deadline(std::function<void()> read) {
  auto done = std::make_shared<std::promise<std::string>>();
  std::future<std::string> result = done->get_future();
  std::thread([done, read] {
    try {
      read();
      done->set_value("");
    } catch (const std::exception& e) {
      done->set_value(e.what());
    }
  }).detach();
  if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready) return "timed out";
  return result.get();
}

class CorpusReader : public ::testing::Test {
 protected:
  CorpusReader() : lj_(folder_.path() / "lj") {
    fs::create_directories(lj_ / "wavs");
    fs::copy_file(kClip, lj_ / "wavs" / "a.wav");
  }

  void write_metadata(const std::string& rows) { std::ofstream(lj_ / "metadata.csv") << rows; }

  // The error load_audio_corpus throws for `dir` ("" when it loads), within the deadline.
  static std::string load_error(const fs::path& dir) {
    return outcome_within_deadline([dir] {
      train::AudioCorpusOptions options;
      options.threads = 1;
      train::load_audio_corpus(dir, options);
    });
  }

  testing_support::TempFolder folder_;
  fs::path lj_;
};

}  // namespace

TEST_F(CorpusReader, ARowWithAFourthFieldIsSkippedNamingItsLine) {
  fs::copy_file(kClip, lj_ / "wavs" / "b.wav");
  fs::copy_file(kClip, lj_ / "wavs" / "c.wav");
  write_metadata("a|Front centre.|Front centre.\nb|Its words|a|b\nc|Three fields.|\n");
  std::vector<std::string> warnings;
  train::SkipCounts skipped;
  const auto entries = train::list_corpus(lj_, warnings, &skipped);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].id, "a");
  EXPECT_EQ(entries[1].id, "c");
  EXPECT_EQ(entries[1].text, "Three fields.");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("metadata.csv:2: skipped: has 4 \"|\"-separated fields"));
  EXPECT_EQ(skipped["malformed row"], 1u);
}

TEST_F(CorpusReader, AFifoListedAsARecordingIsSkippedWithoutBeingOpened) {
  make_fifo(lj_ / "wavs" / "b.wav");
  write_metadata("a|Front centre.\nb|A pipe.\n");
  std::vector<std::string> warnings;
  train::SkipCounts skipped;
  const auto entries = train::list_corpus(lj_, warnings, &skipped);
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("metadata.csv:2: skipped:"));
  EXPECT_THAT(warnings[0], HasSubstr("b.wav is a FIFO"));
  EXPECT_EQ(skipped["not a regular file"], 1u);
  EXPECT_EQ(load_error(lj_), "");
}

TEST_F(CorpusReader, AFifoAmongTheFilesOfAFolderIsSkippedWithAWarning) {
  const fs::path folder = folder_.path() / "plain";
  fs::create_directories(folder);
  fs::copy_file(kClip, folder / "a.wav");
  make_fifo(folder / "pipe.wav");
  std::vector<std::string> warnings;
  train::SkipCounts skipped;
  const auto entries = train::list_corpus(folder, warnings, &skipped);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].id, "a");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("pipe.wav: skipped:"));
  EXPECT_THAT(warnings[0], HasSubstr("is a FIFO"));
  EXPECT_EQ(load_error(folder), "");
}

TEST_F(CorpusReader, AFifoAsMetadataIsRefusedInsteadOfBlocking) {
  make_fifo(lj_ / "metadata.csv");
  const std::string error = load_error(lj_);
  EXPECT_THAT(error, HasSubstr("metadata.csv"));
  EXPECT_THAT(error, HasSubstr("a FIFO, not a regular file"));
}

TEST_F(CorpusReader, ASymlinkLoopIsAWarningNamingItsRowNotAnEndToTheRun) {
  fs::create_symlink("loop.wav", lj_ / "wavs" / "loop.wav");
  write_metadata("loop|Round and round.\na|Front centre.\n");
  std::vector<std::string> warnings;
  train::SkipCounts skipped;
  const auto entries = train::list_corpus(lj_, warnings, &skipped);
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("metadata.csv:1: skipped:"));
  EXPECT_THAT(warnings[0], HasSubstr("loop.wav"));
  EXPECT_EQ(skipped["unreadable"], 1u);

  const fs::path folder = folder_.path() / "plain";
  fs::create_directories(folder);
  fs::copy_file(kClip, folder / "a.wav");
  fs::create_symlink("loop.wav", folder / "loop.wav");
  warnings.clear();
  const auto files = train::list_corpus(folder, warnings);
  ASSERT_EQ(files.size(), 1u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("loop.wav: skipped:"));
}

TEST_F(CorpusReader, AnEmptyCorpusSaysWhy) {
  write_metadata("");
  EXPECT_THAT(load_error(lj_), HasSubstr("metadata.csv: is empty"));
  write_metadata("\n  \n\n");
  EXPECT_THAT(load_error(lj_), HasSubstr("metadata.csv: is empty"));
  write_metadata("\xEF\xBB\xBF\n");
  EXPECT_THAT(load_error(lj_), HasSubstr("metadata.csv: has no rows"));
  write_metadata("no bar here\nb|missing.\n");
  const std::string skipped = load_error(lj_);
  EXPECT_THAT(skipped, HasSubstr("no usable audio files: 2 skipped"));
  EXPECT_THAT(skipped, HasSubstr("1 malformed row"));
  EXPECT_THAT(skipped, HasSubstr("1 missing audio"));
  fs::remove(lj_ / "metadata.csv");
  fs::create_directory(lj_ / "metadata.csv");
  EXPECT_THAT(load_error(lj_), HasSubstr("metadata.csv: is a directory, not a regular file"));

  const fs::path bare = folder_.path() / "bare";
  fs::create_directories(bare / "sub");
  std::ofstream(bare / "notes.txt") << "not audio";
  EXPECT_THAT(load_error(bare), HasSubstr("it has no metadata.csv and no .wav, .flac or .ogg"));
}
