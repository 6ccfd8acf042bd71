#include "tts/train/audio_corpus.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>

#include "tts/audio/audio_file.h"
#include "tts/kernels/pitch.h"
#include "tts/kernels/regular_file.h"
#include "tts/vocoder/sample_codec.h"

namespace fs = std::filesystem;

namespace tts::train {

namespace {

// The characters per second of speech, generously bounded: read speech runs at about 12 to 16.
constexpr double kMinCharactersPerSecond = 1.0;
constexpr double kMaxCharactersPerSecond = 40.0;

bool is_audio_file(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  return ext == ".wav" || ext == ".flac" || ext == ".ogg";
}

// A file or row that is left out: thrown inside the loaders with the reason it is counted under.
class Skipped : public std::runtime_error {
 public:
  Skipped(std::string reason, const std::string& what)
      : std::runtime_error(what), reason_(std::move(reason)) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// Whether an id names a file inside wavs/: not absolute, no ".." step out, no NUL (which the
// system would cut the name at). Found by fuzz/corpus_fuzz: a row "../x|…" or "/abs/x|…" read a
// recording from outside the corpus.
bool id_stays_in_wavs(const std::string& id) {
  if (id.find('\0') != std::string::npos) return false;
  const fs::path path(id);
  if (path.has_root_path()) return false;
  for (const auto& part : path)
    if (part == "..") return false;
  return true;
}

// What stands at `path` where a recording should be: a regular file (or a link to one) is
// nullopt; anything else is the reason and detail it is skipped under. Asked of the name before
// anything opens it: a FIFO would block the reader for ever, a device stream without end, and a
// symlink loop makes every later look at it a filesystem_error.
std::optional<std::pair<std::string, std::string>> unusable_audio_file(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  switch (status.type()) {
    case fs::file_type::regular:
      return std::nullopt;
    case fs::file_type::not_found:
      return std::make_pair("missing audio", path.string() + " does not exist");
    case fs::file_type::directory:
      return std::make_pair("not a regular file", path.string() + " is a folder");
    case fs::file_type::fifo:
      return std::make_pair("not a regular file", path.string() + " is a FIFO");
    case fs::file_type::socket:
      return std::make_pair("not a regular file", path.string() + " is a socket");
    case fs::file_type::block:
    case fs::file_type::character:
      return std::make_pair("not a regular file", path.string() + " is a device");
    default:
      break;
  }
  if (ec) return std::make_pair("unreadable", path.string() + ": " + ec.message());
  return std::make_pair("not a regular file", path.string() + " is not a regular file");
}

// The number of "|"-separated fields of a row.
std::size_t field_count(const std::string& line) {
  return 1 + static_cast<std::size_t>(std::count(line.begin(), line.end(), '|'));
}

std::vector<CorpusEntry> read_metadata(const fs::path& dir, std::vector<SkippedRow>& skipped) {
  std::vector<CorpusEntry> entries;
  const fs::path csv = dir / "metadata.csv";
  // Read whole as a regular file: a FIFO, folder or device named metadata.csv is refused by name
  // instead of blocking the open or reading as no rows.
  std::string contents;
  try {
    contents = kernels::read_regular_file(csv);
  } catch (const kernels::RegularFileError& e) {
    throw std::runtime_error(std::string(e.what()) + " (the corpus's list of recordings)");
  }
  if (contents.find_first_not_of(" \t\r\n") == std::string::npos)
    throw std::runtime_error(csv.string() + ": is empty: no \"id|text\" rows to train on");
  std::istringstream in(contents);
  const std::size_t skipped_before = skipped.size();
  // The line and text of each id taken so far. A repeated id names the same recording twice:
  // used twice it would weigh double and, with another text, train one recording on two
  // transcripts. Like every other bad row, the repeat is skipped with a warning naming both lines
  // rather than failing a corpus of thousands of rows over one; the first row is kept.
  std::map<std::string, std::pair<int, std::string>> taken;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // A UTF-8 byte-order mark, which some editors put at the start of a CSV, is not part of the
    // first id.
    if (number == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    if (line.empty()) continue;
    const std::string where = csv.string() + ":" + std::to_string(number);
    auto skip = [&](const std::string& reason, const std::string& what) {
      skipped.push_back({where, reason, what});
    };
    const auto bar = line.find('|');
    if (bar == std::string::npos || bar == 0) {
      skip("malformed row", "expected \"id|text\"");
      continue;
    }
    // A fourth field has no meaning: the row is likely a transcript with a "|" in it, or columns
    // of another format, and taking any of its fields as the text would train on the wrong words.
    if (const std::size_t fields = field_count(line); fields > 3) {
      skip("malformed row", "has " + std::to_string(fields) +
                                " \"|\"-separated fields; expected \"id|text\" or "
                                "\"id|text|normalised text\"");
      continue;
    }
    CorpusEntry e;
    e.id = line.substr(0, bar);
    std::string rest = line.substr(bar + 1);
    const auto second = rest.find('|');
    // LJSpeech's third column is the normalised text; prefer it when present and non-empty.
    if (second != std::string::npos && second + 1 < rest.size())
      e.text = rest.substr(second + 1);
    else
      e.text = rest.substr(0, second);
    if (!id_stays_in_wavs(e.id)) {
      skip("malformed row", "id \"" + e.id + "\" is not a file name inside wavs/");
      continue;
    }
    if (spoken_characters(e.text) == 0) {
      skip("no words in the transcript",
           "its text \"" + e.text + "\" has no letter or digit to speak");
      continue;
    }
    e.line = number;
    e.path = dir / "wavs" / (e.id + ".wav");
    if (const auto unusable = unusable_audio_file(e.path)) {
      skip(unusable->first, unusable->second);
      continue;
    }
    const auto [first, fresh] = taken.emplace(e.id, std::make_pair(number, e.text));
    if (!fresh) {
      const auto& [first_line, first_text] = first->second;
      skip("duplicate id", "id \"" + e.id + "\" repeats line " + std::to_string(first_line) +
                               ", which is kept" +
                               (first_text == e.text ? "" : " (the texts differ)"));
      continue;
    }
    entries.push_back(std::move(e));
  }
  if (entries.empty() && skipped.size() == skipped_before)
    throw std::runtime_error(csv.string() + ": has no rows: no \"id|text\" rows to train on");
  return entries;
}

}  // namespace

std::size_t spoken_characters(const std::string& text) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      count += std::isalnum(lead) ? 1 : 0;
      ++i;
      continue;
    }
    // A multi-byte UTF-8 sequence: decoded where it is well formed, so that punctuation and
    // spaces outside ASCII (Latin-1's, U+2000..U+206F, CJK's U+3000..U+303F) do not count.
    const int length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    char32_t code = length == 4 ? lead & 0x07 : length == 3 ? lead & 0x0F : lead & 0x1F;
    bool well_formed = length > 1 && i + static_cast<std::size_t>(length) <= text.size();
    for (int k = 1; well_formed && k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
      well_formed = (next & 0xC0) == 0x80;
      code = (code << 6) | (next & 0x3F);
    }
    const bool punctuation = (code >= 0xA0 && code <= 0xBF) || code == 0xD7 || code == 0xF7 ||
                             (code >= 0x2000 && code <= 0x206F) ||
                             (code >= 0x3000 && code <= 0x303F) || code == 0xFEFF;
    count += well_formed && !punctuation ? 1 : 0;
    i += well_formed ? static_cast<std::size_t>(length) : 1;
  }
  return count;
}

std::string describe_skipped(const SkipCounts& skipped, const std::vector<std::string>& warnings,
                             std::size_t shown) {
  std::size_t total = 0;
  std::string reasons;
  for (const auto& [reason, count] : skipped) {
    total += count;
    reasons += (reasons.empty() ? "" : ", ") + std::to_string(count) + " " + reason;
  }
  std::string text =
      std::to_string(total) + " skipped" + (reasons.empty() ? "" : " (" + reasons + ")");
  for (std::size_t i = 0; i < warnings.size() && i < shown; ++i) text += "\n  " + warnings[i];
  if (warnings.size() > shown)
    text += "\n  … and " + std::to_string(warnings.size() - shown) + " more";
  return text;
}

std::vector<CorpusEntry> list_metadata_rows(const fs::path& dir, std::vector<SkippedRow>& skipped) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(dir.string() + ": not a folder");
  return read_metadata(dir, skipped);
}

std::vector<CorpusEntry> list_corpus(const fs::path& dir, std::vector<std::string>& warnings,
                                     SkipCounts* skipped) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error(dir.string() + ": not a folder");
  // Anything named metadata.csv (a dangling link, a FIFO, a folder included) makes the folder an
  // LJSpeech corpus, whose reader says what is wrong with it.
  if (fs::symlink_status(dir / "metadata.csv", ec).type() != fs::file_type::not_found) {
    std::vector<SkippedRow> rows;
    std::vector<CorpusEntry> entries = read_metadata(dir, rows);
    for (const SkippedRow& row : rows) {
      warnings.push_back(row.where + ": skipped: " + row.detail);
      if (skipped) ++(*skipped)[row.reason];
    }
    return entries;
  }
  std::vector<CorpusEntry> entries;
  std::error_code listing;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, listing);
  for (; !listing && it != fs::recursive_directory_iterator(); it.increment(listing)) {
    const fs::path& path = it->path();
    if (!is_audio_file(path)) continue;
    if (const auto unusable = unusable_audio_file(path)) {
      warnings.push_back(path.string() + ": skipped: " + unusable->second);
      if (skipped) ++(*skipped)[unusable->first];
      continue;
    }
    entries.push_back({path, path.lexically_relative(dir).replace_extension().string(), "", 0});
  }
  if (listing)
    throw std::runtime_error(dir.string() + ": cannot list its files: " + listing.message());
  std::sort(entries.begin(), entries.end(),
            [](const CorpusEntry& a, const CorpusEntry& b) { return a.path < b.path; });
  return entries;
}

AudioCorpus load_audio_corpus(const fs::path& dir, const AudioCorpusOptions& options) {
  AudioCorpus corpus;
  const std::vector<CorpusEntry> entries = list_corpus(dir, corpus.warnings, &corpus.skipped);
  const kernels::MelExtractor mel(options.features);
  const int rate = options.features.sample_rate;

  std::vector<std::optional<AudioUtterance>> loaded(entries.size());
  std::vector<std::string> problems(entries.size()), reasons(entries.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < entries.size(); i = next++) {
      const CorpusEntry& e = entries[i];
      try {
        audio::Audio a;
        try {
          a = audio::read_audio(e.path, rate);
        } catch (const std::exception& ex) {
          throw Skipped("unreadable", ex.what());
        }
        const double seconds = static_cast<double>(a.samples.size()) / rate;
        if (a.samples.empty()) throw Skipped("empty", "no audio");
        if (seconds < options.min_seconds || seconds > options.max_seconds)
          throw Skipped("too short or too long", "duration " + std::to_string(seconds) +
                                                     " s is outside " +
                                                     std::to_string(options.min_seconds) + ".." +
                                                     std::to_string(options.max_seconds) + " s");
        // A transcript far longer or shorter than the recording could hold is another
        // recording's, or several rows run together: training would align words to the wrong
        // sounds.
        if (e.line > 0) {
          const std::size_t letters = spoken_characters(e.text);
          const double per_second = static_cast<double>(letters) / seconds;
          if (per_second < kMinCharactersPerSecond || per_second > kMaxCharactersPerSecond) {
            char rate_text[96];
            std::snprintf(rate_text, sizeof rate_text, " for %.2f s of audio (%.1f a second)",
                          seconds, per_second);
            throw Skipped("transcript length unlike speech",
                          "metadata.csv:" + std::to_string(e.line) + ": its text has " +
                              std::to_string(letters) + (letters == 1 ? " letter" : " letters") +
                              rate_text + ", and speech has 1 to 40: is it this recording's?");
          }
        }
        float peak = 0.0f;
        for (float s : a.samples) peak = std::max(peak, std::fabs(s));
        if (peak < 1e-4f) throw Skipped("silent", "silent (peak below -80 dBFS)");
        AudioUtterance u;
        u.id = e.id;
        u.path = e.path;
        u.text = e.text;
        if (options.pitch_energy) {
          u.mel = mel.compute(a.samples.data(), a.samples.size(), &u.log_energy);
          u.f0_hz = kernels::track_pitch(a.samples.data(), a.samples.size(), options.features);
        } else {
          u.mel = mel.compute(a.samples.data(), a.samples.size());
        }
        u.classes = vocoder::encode_samples(a.samples, options.classes, options.preemphasis);
        loaded[i] = std::move(u);
      } catch (const Skipped& ex) {
        problems[i] = e.path.string() + ": skipped: " + ex.what();
        reasons[i] = ex.reason();
      } catch (const std::exception& ex) {
        problems[i] = e.path.string() + ": skipped: " + ex.what();
        reasons[i] = "failed";
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, options.threads); ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();

  std::vector<AudioUtterance> usable;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (loaded[i]) {
      usable.push_back(std::move(*loaded[i]));
    } else {
      corpus.warnings.push_back(problems[i]);
      ++corpus.skipped[reasons[i]];
    }
  }
  if (entries.empty() && corpus.skipped.empty())
    throw std::runtime_error(dir.string() + ": no usable audio files: it has no metadata.csv " +
                             "and no .wav, .flac or .ogg file");
  if (usable.empty())
    throw std::runtime_error(dir.string() + ": no usable audio files: " +
                             describe_skipped(corpus.skipped, corpus.warnings));

  // Every k-th utterance goes to validation, but training always keeps at least one.
  std::size_t wanted = std::max<std::size_t>(
      options.min_validation,
      static_cast<std::size_t>(std::lround(options.validation_fraction * usable.size())));
  if (usable.size() < 2) wanted = 0;
  wanted = std::min(wanted, usable.size() - 1);
  const std::size_t stride = wanted ? usable.size() / wanted : 0;
  for (std::size_t i = 0; i < usable.size(); ++i) {
    const bool held_out = wanted && i % stride == stride - 1 && corpus.validation.size() < wanted;
    (held_out ? corpus.validation : corpus.training).push_back(std::move(usable[i]));
  }
  return corpus;
}

}  // namespace tts::train
