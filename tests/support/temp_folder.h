// A fresh folder for one test (or one suite) under the system's temporary directory, removed with
// everything in it when the TempFolder goes. mkdtemp makes the name unique, so tests of one suite
// run in parallel processes (as CTest runs them) never share a folder; the name also says which
// test made it, for whoever finds one left behind by a crash.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace tts::testing_support {

class TempFolder {
 public:
  // Makes <temporary directory>/<prefix><test>-XXXXXX, where <test> is the running test's
  // "Suite.Name", or the suite's name in SetUpTestSuite, or "no-test" outside both. Throws
  // std::runtime_error naming the folder and the reason when it cannot be made.
  explicit TempFolder(std::string_view prefix = "tts-") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + test_label() + "-XXXXXX"))
            .string();
    std::string made = pattern;  // mkdtemp may change the X's even when it fails
    if (::mkdtemp(made.data()) == nullptr)
      throw std::runtime_error("cannot make a temporary folder " + pattern + ": " +
                               std::strerror(errno));
    path_ = made;
  }
  // Removes the folder it made and everything in it; never any other folder, so it cannot be
  // copied or moved. A destructor must not throw: what cannot be removed is left behind.
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }

 private:
  // The running test's name, made safe for a file name: parameterised tests' names hold '/', and
  // a long one is cut so that the folder's name stays well under NAME_MAX.
  static std::string test_label() {
    const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
    std::string label = "no-test";
    if (const ::testing::TestInfo* test = unit.current_test_info())
      label = std::string(test->test_suite_name()) + "." + test->name();
    else if (const ::testing::TestSuite* suite = unit.current_test_suite())
      label = suite->name();
    for (char& c : label) {
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
      if (!plain) c = '_';
    }
    if (label.size() > 150) label.resize(150);
    return label;
  }

  std::filesystem::path path_;
};

}  // namespace tts::testing_support
