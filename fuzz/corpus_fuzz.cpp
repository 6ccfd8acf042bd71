// libFuzzer target for the rows of a training corpus's metadata.csv (train/common/audio_corpus.cpp,
// list_corpus): the input is the file, in a corpus folder whose wavs/ holds a.wav, b.wav and
// LJ001-0001.wav (and which has a recording outside wavs/ too, outside.wav).
//
// Checks, besides the sanitizers': listing throws only for a file with nothing to read (blank, or
// no row at all), naming metadata.csv; otherwise every non-empty line becomes exactly one
// entry or one warning (counted once in the skip counts), in line order; an entry has a non-empty
// id without '|', its audio is wavs/ID.wav, exists, and lies inside wavs/ (an id such as
// "../outside" or "/etc/x" must not reach a file elsewhere); ids are unique; texts hold no line
// break. describe_skipped summarises any result.
#include <cstddef>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tts/train/audio_corpus.h"

namespace fs = std::filesystem;

namespace {

const fs::path& corpus_folder() {
  static const fs::path folder = [] {
    const fs::path dir = tts::fuzz::scratch() / "corpus";
    fs::create_directories(dir / "wavs");
    for (const char* id : {"a", "b", "LJ001-0001"})
      tts::fuzz::write_bytes(dir / "wavs" / (std::string(id) + ".wav"), "");
    tts::fuzz::write_bytes(dir / "outside.wav", "");
    return dir;
  }();
  return folder;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& dir = corpus_folder();
  const std::string_view csv(reinterpret_cast<const char*>(data), size);
  tts::fuzz::write_bytes(dir / "metadata.csv", csv);

  std::size_t lines = 0;
  const std::size_t after_bom = csv.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  for (std::size_t at = after_bom; at < csv.size();) {
    std::size_t end = csv.find('\n', at);
    if (end == std::string_view::npos) end = csv.size();
    std::string_view line = csv.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines += !line.empty();
    at = end + 1;
  }

  std::vector<std::string> warnings;
  tts::train::SkipCounts skipped;
  std::vector<tts::train::CorpusEntry> entries;
  try {
    entries = tts::train::list_corpus(dir, warnings, &skipped);
  } catch (const std::runtime_error& e) {
    // Nothing to train on is said, naming the file, and only then.
    const std::string what = e.what();
    TTS_FUZZ_CHECK(what.find((dir / "metadata.csv").string()) == 0);
    TTS_FUZZ_CHECK(csv.find_first_not_of(" \t\r\n") == std::string_view::npos || lines == 0);
    return 0;
  }
  std::size_t counted = 0;
  for (const auto& [reason, count] : skipped) {
    TTS_FUZZ_CHECK(!reason.empty() && count > 0);
    counted += count;
  }
  TTS_FUZZ_CHECK(counted == warnings.size());
  TTS_FUZZ_CHECK(entries.size() + warnings.size() == lines);

  const fs::path wavs = fs::canonical(dir / "wavs");
  std::set<std::string> ids;
  for (const auto& e : entries) {
    TTS_FUZZ_CHECK(!e.id.empty() && e.id.find('|') == std::string::npos);
    TTS_FUZZ_CHECK(e.id.find('\n') == std::string::npos);
    TTS_FUZZ_CHECK(e.text.find('\n') == std::string::npos);
    TTS_FUZZ_CHECK(ids.insert(e.id).second);
    TTS_FUZZ_CHECK(e.path == dir / "wavs" / (e.id + ".wav"));
    TTS_FUZZ_CHECK(fs::exists(e.path));
    const fs::path real = fs::canonical(e.path);
    TTS_FUZZ_CHECK(real.parent_path() == wavs);
  }
  for (const auto& w : warnings) TTS_FUZZ_CHECK(w.find((dir / "metadata.csv").string()) == 0);
  (void)tts::train::describe_skipped(skipped, warnings);
  return 0;
}
