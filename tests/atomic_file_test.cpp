#include "tts/kernels/atomic_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "temp_folder.h"

namespace fs = std::filesystem;
using testing::HasSubstr;
using tts::kernels::write_file_atomically;

namespace {

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class AtomicFileTest : public testing::Test {
 protected:
  // Names of everything in the test folder, to prove no temporaries are left behind.
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_.path())) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string error_of(const fs::path& path, const std::function<void(std::ostream&)>& write) {
    try {
      write_file_atomically(path, write);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "(no error)";
  }

  tts::testing_support::TempFolder dir_;
};

}  // namespace

TEST_F(AtomicFileTest, WritesNewFileAndReplacesOldOne) {
  const fs::path path = dir_ / "out.bin";
  write_file_atomically(path, std::string_view("first"));
  EXPECT_EQ(read_all(path), "first");
  write_file_atomically(path, [](std::ostream& out) { out << "second, longer"; });
  EXPECT_EQ(read_all(path), "second, longer");
  EXPECT_EQ(listing(), std::vector<std::string>{"out.bin"});
}

TEST_F(AtomicFileTest, WritesLargeAndBinaryContents) {
  std::string big(1 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 % 251);
  const fs::path path = dir_ / "big.bin";
  write_file_atomically(path, big);
  EXPECT_EQ(read_all(path), big);
  write_file_atomically(path, std::string_view());
  EXPECT_EQ(read_all(path), "");
}

TEST_F(AtomicFileTest, ThrowingCallbackLeavesOldFileAndNoTemporary) {
  const fs::path path = dir_ / "keep.txt";
  write_file_atomically(path, std::string_view("precious"));
  const std::string msg = error_of(path, [](std::ostream& out) {
    out << std::string(200000, 'x');  // more than the stream buffer, so bytes reach the temp file
    throw std::runtime_error("model exploded");
  });
  EXPECT_THAT(msg, HasSubstr(path.string()));
  EXPECT_THAT(msg, HasSubstr("model exploded"));
  EXPECT_EQ(read_all(path), "precious");
  EXPECT_EQ(listing(), std::vector<std::string>{"keep.txt"});

  const std::string other = error_of(path, [](std::ostream&) { throw 42; });
  EXPECT_THAT(other, HasSubstr("unknown exception"));
  EXPECT_EQ(read_all(path), "precious");
  EXPECT_EQ(listing(), std::vector<std::string>{"keep.txt"});
}

TEST_F(AtomicFileTest, BadStreamFailsTheWrite) {
  const fs::path path = dir_ / "keep.txt";
  write_file_atomically(path, std::string_view("precious"));
  const std::string msg = error_of(path, [](std::ostream& out) {
    out << "partial";
    out.setstate(std::ios::badbit);
  });
  EXPECT_THAT(msg, HasSubstr(path.string()));
  EXPECT_THAT(msg, HasSubstr("stream went bad"));
  EXPECT_EQ(read_all(path), "precious");
  EXPECT_EQ(listing(), std::vector<std::string>{"keep.txt"});
}

TEST_F(AtomicFileTest, MissingDirectoryIsNamed) {
  const fs::path path = dir_ / "no" / "such" / "dir" / "file.bin";
  const std::string msg = error_of(path, [](std::ostream& out) { out << "x"; });
  EXPECT_THAT(msg, HasSubstr(path.string()));
  EXPECT_THAT(msg, HasSubstr("No such file or directory"));
  EXPECT_TRUE(listing().empty());
}

TEST_F(AtomicFileTest, RenameOntoDirectoryFailsCleanly) {
  const fs::path path = dir_ / "occupied";
  fs::create_directories(path / "child");
  const std::string msg = error_of(path, [](std::ostream& out) { out << "x"; });
  EXPECT_THAT(msg, HasSubstr(path.string()));
  EXPECT_THAT(msg, HasSubstr("rename"));
  EXPECT_EQ(listing(), std::vector<std::string>{"occupied"});
  EXPECT_TRUE(fs::is_directory(path / "child"));
}

TEST_F(AtomicFileTest, ConcurrentWritersNeverMixContents) {
  const fs::path path = dir_ / "shared.txt";
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const std::string contents(100000, static_cast<char>('a' + t));
      for (int i = 0; i < 10; ++i) write_file_atomically(path, contents);
    });
  }
  for (auto& thread : threads) thread.join();
  const std::string result = read_all(path);
  ASSERT_EQ(result.size(), 100000u);
  EXPECT_EQ(result, std::string(result.size(), result[0]));
  EXPECT_EQ(listing(), std::vector<std::string>{"shared.txt"});
}

TEST_F(AtomicFileTest, StaleTemporariesOfDeadWritersAreRemovedAndNothingElse) {
  // A writer that has exited: its pid runs nothing (until the system reuses it).
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const std::string dead = std::to_string(child), alive = std::to_string(::getpid());
  const std::vector<std::string> stale = {"a.json.tmp-" + dead + "-0",
                                          "b.safetensors.tmp-" + dead + "-17"};
  const std::vector<std::string> kept = {
      "a.json",                         // the target itself
      "a.json.tmp-" + alive + "-5",     // a live writer (this process) may be mid-write
      "a.json.tmp-" + dead,             // no counter
      "a.json.tmp-" + dead + "-1.bak",  // something after the counter
      "a.json.tmp-x-1",                 // no pid
      ".tmp-" + dead + "-1",            // no target name
      "notes.tmp"};
  for (const auto& name : stale) std::ofstream(dir_ / name) << "partial";
  for (const auto& name : kept) std::ofstream(dir_ / name) << "keep";
  fs::create_directories(dir_ / ("folder.tmp-" + dead + "-2"));  // not a file: left alone
  fs::create_directories(dir_ / "sub");
  std::ofstream(dir_ / "sub" / ("c.tmp-" + dead + "-3")) << "partial";  // sub-folders are not ours

  for (const auto& name : stale) EXPECT_TRUE(tts::kernels::is_atomic_temporary_name(name)) << name;
  EXPECT_FALSE(tts::kernels::is_atomic_temporary_name("a.json.tmp-x-1"));
  const auto removed = tts::kernels::remove_stale_temporaries(dir_.path());
  EXPECT_EQ(removed.size(), stale.size());
  std::vector<std::string> expected = kept;
  expected.push_back("folder.tmp-" + dead + "-2");
  expected.push_back("sub");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(listing(), expected);
  EXPECT_TRUE(fs::exists(dir_ / "sub" / ("c.tmp-" + dead + "-3")));
  EXPECT_TRUE(tts::kernels::remove_stale_temporaries(dir_ / "no-such-folder").empty());
}
