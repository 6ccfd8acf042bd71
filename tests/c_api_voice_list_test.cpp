// The C API's voice list (tts_voice_list_*): the search path in order, the voices in it, the
// first folder winning a name, unreadable voices named, and the C99 compile of the same calls
// (c_list_voices in c_api_header.c).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "random_voice_suite.h"
#include "tts/tts.h"

extern "C" long c_list_voices(char* out, size_t size);

namespace fs = std::filesystem;

namespace {

// One random voice in a temporary folder, copied into the search-path folders the tests make.
class CApiVoiceList : public tts::testing_support::RandomVoiceSuite<CApiVoiceList> {};

// Sets an environment variable for one scope, restoring what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::vector<std::string> search_path_of(const tts_voice_list* list) {
  std::vector<std::string> folders;
  for (size_t i = 0; i < tts_voice_list_search_path_count(list); ++i)
    folders.emplace_back(tts_voice_list_search_path(list, i));
  EXPECT_EQ(tts_voice_list_search_path(list, folders.size()), nullptr);
  return folders;
}

TEST_F(CApiVoiceList, GivesTheSearchPathAndTheVoicesInIt) {
  const fs::path first = folder() / "list-first", second = folder() / "list-second";
  fs::remove_all(first);
  fs::remove_all(second);
  fs::create_directories(first);
  fs::create_directories(second);
  fs::copy(voice_path(), first / "babble", fs::copy_options::recursive);
  fs::copy(voice_path(), second / "babble", fs::copy_options::recursive);  // hidden by first's
  fs::copy(voice_path(), second / "another", fs::copy_options::recursive);
  {  // another is bilingual, and says who speaks
    std::ifstream in(second / "another" / "voice.json");
    nlohmann::json j = nlohmann::json::parse(in);
    j["languages"] = {"en-US", "es-MX"};
    j["espeak_voices"] = {{"es-MX", "es-419"}};
    j["speaker"] = "Allison";
    j["sex"] = "female";
    std::ofstream(second / "another" / "voice.json") << j.dump();
  }
  fs::create_directories(second / "broken");
  { std::ofstream(second / "broken" / "voice.json") << "{\"format\": \"nonsense\"}"; }
  fs::create_directories(second / "not-a-voice");
  const std::string path = first.string() + "::" + second.string();
  const ScopedEnv voice_path_env("TTS_VOICE_PATH", path.c_str());
  const ScopedEnv xdg("XDG_DATA_HOME", (folder() / "xdg").c_str());

  tts_voice_list* list = reinterpret_cast<tts_voice_list*>(0x1);
  ASSERT_EQ(tts_voice_list_create(&list), TTS_OK) << tts_last_error();
  const auto folders = search_path_of(list);
  // TTS_VOICE_PATH's folders, the user's, and (run from the build tree) the source tree's voices/.
  ASSERT_EQ(folders.size(), 4u);
  EXPECT_EQ(folders[0], first.string());
  EXPECT_EQ(folders[1], second.string());
  EXPECT_EQ(folders[2], (folder() / "xdg" / "tts" / "voices").string());
  EXPECT_EQ(fs::path(folders[3]), fs::path(TTS_SOURCE_DIR) / "voices");

  // babble (from first), then second's another and broken; then the source tree's voices.
  ASSERT_GE(tts_voice_list_count(list), 3u);
  tts_voice_info info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  ASSERT_EQ(tts_voice_list_get(list, 0, &info), TTS_OK) << tts_last_error();
  EXPECT_STREQ(info.name, "babble");  // the folder's name, which tts_voice_load takes
  EXPECT_EQ(std::string(info.path), (first / "babble").string());
  EXPECT_STREQ(info.language, "en-us");
  EXPECT_STREQ(info.languages, "en-US");  // BCP 47 tags, comma-separated
  EXPECT_STREQ(info.speaker, "");         // voice.json does not say
  EXPECT_STREQ(info.sex, "");
  EXPECT_EQ(info.sample_rate, 16000);
  EXPECT_STREQ(info.licence, "CC0-1.0");
  EXPECT_GT(info.size_bytes, 0u);
  ASSERT_EQ(tts_voice_list_get(list, 1, &info), TTS_OK) << tts_last_error();
  EXPECT_STREQ(info.name, "another");
  EXPECT_STREQ(info.languages, "en-US,es-MX");
  EXPECT_STREQ(info.speaker, "Allison");
  EXPECT_STREQ(info.sex, "female");
  EXPECT_EQ(tts_voice_list_get(list, 2, &info), TTS_ERR_BAD_VOICE);
  EXPECT_STREQ(info.name, "broken");
  EXPECT_EQ(std::string(info.path), (second / "broken").string());
  EXPECT_STREQ(info.language, "");
  EXPECT_EQ(info.sample_rate, 0);
  EXPECT_NE(std::string(tts_last_error()).find("voice.json"), std::string::npos)
      << tts_last_error();
  for (size_t i = 3; i < tts_voice_list_count(list); ++i) {
    ASSERT_EQ(tts_voice_list_get(list, i, &info), TTS_OK) << tts_last_error();
    EXPECT_EQ(fs::path(info.path).parent_path(), fs::path(TTS_SOURCE_DIR) / "voices");
  }
  EXPECT_EQ(tts_voice_list_get(list, tts_voice_list_count(list), &info), TTS_ERR_INVALID_ARGUMENT);

  // Each listed name loads by that name.
  tts_voice* voice = nullptr;
  ASSERT_EQ(tts_voice_load("another", nullptr, &voice), TTS_OK) << tts_last_error();
  tts_voice_free(voice);

  // A smaller tts_voice_info (an older header) is filled only up to its size.
  struct {
    tts_voice_info info;
    char guard[8];
  } small;
  std::memset(&small, 0x5a, sizeof small);
  small.info.struct_size = offsetof(tts_voice_info, sample_rate);
  ASSERT_EQ(tts_voice_list_get(list, 0, &small.info), TTS_OK);
  EXPECT_STREQ(small.info.name, "babble");
  EXPECT_STREQ(small.info.language, "en-us");
  EXPECT_EQ(reinterpret_cast<const unsigned char*>(&small.info.sample_rate)[0], 0x5a);
  tts_voice_list_free(list);

  // The snapshot follows the environment at its creation; the C compile agrees.
  char text[4096];
  const ScopedEnv only_first("TTS_VOICE_PATH", first.c_str());
  ASSERT_EQ(tts_voice_list_create(&list), TTS_OK);
  const long expected = static_cast<long>(tts_voice_list_count(list));  // babble, the source's
  EXPECT_EQ(search_path_of(list).front(), first.string());
  tts_voice_list_free(list);
  EXPECT_EQ(c_list_voices(text, sizeof text), expected);
  EXPECT_EQ(std::string(text).rfind(first.string() + "\n", 0), 0u) << text;
}

TEST(CApiVoiceListStatic, ArgumentsAreChecked) {
  EXPECT_EQ(tts_voice_list_create(nullptr), TTS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tts_voice_list_count(nullptr), 0u);
  EXPECT_EQ(tts_voice_list_search_path_count(nullptr), 0u);
  EXPECT_EQ(tts_voice_list_search_path(nullptr, 0), nullptr);
  tts_voice_info info;
  info.struct_size = sizeof info;
  EXPECT_EQ(tts_voice_list_get(nullptr, 0, &info), TTS_ERR_INVALID_ARGUMENT);
  tts_voice_list* list = nullptr;
  ASSERT_EQ(tts_voice_list_create(&list), TTS_OK);
  EXPECT_EQ(tts_voice_list_get(list, 0, nullptr), TTS_ERR_INVALID_ARGUMENT);
  info.struct_size = 4;
  EXPECT_EQ(tts_voice_list_get(list, 0, &info), TTS_ERR_INVALID_ARGUMENT);
  tts_voice_list_free(list);
  tts_voice_list_free(nullptr);
}

}  // namespace
