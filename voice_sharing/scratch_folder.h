// A private folder under the system's temporary folder (mkdtemp), removed with what it holds when
// it goes out of scope: where an index's archive is fetched and a voice.json read. Private to
// tts_voice_sharing.
#pragma once

#include <filesystem>

namespace tts::sharing {

class ScratchFolder {
 public:
  ScratchFolder();
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace tts::sharing
