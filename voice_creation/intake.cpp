#include "tts/voice_creation/intake.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tts/audio/audio_file.h"
#include "tts/frontend/text_pipeline.h"
#include "tts/kernels/atomic_file.h"
#include "tts/train/audio_corpus.h"

namespace fs = std::filesystem;

namespace tts::creation {

namespace {

// Extensions of the audio a folder without metadata.csv may hold (what libsndfile reads).
bool is_recording(const fs::path& p) {
  static const std::set<std::string> kExtensions = {".wav", ".flac", ".ogg", ".oga", ".opus",
                                                    ".mp3", ".aiff", ".aif", ".au"};
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return kExtensions.count(ext) > 0;
}

std::string read_text_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  // One line of text, however the file breaks it.
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t' || c == '|') c = ' ';
  const auto first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// An id safe as a file name in wavs/ and a metadata.csv field: the relative path without its
// extension, folders joined by "__".
std::string id_of(const fs::path& relative) {
  fs::path stem = relative;
  stem.replace_extension();
  std::string id;
  for (const auto& part : stem) id += (id.empty() ? "" : "__") + part.string();
  for (char& c : id)
    if (c == '|' || c == '\n' || c == '\r') c = '_';
  return id;
}

struct Entry {
  fs::path audio;
  std::string id, text, where;  // where: the file or metadata line a message names
};

// A row that is left out, with the reason it is counted under.
struct Skip {
  std::string reason, detail;
};

// The rows of an audio + .txt folder; transcripts and recordings without their partner are
// skipped here.
std::vector<Entry> list_folder(const fs::path& dir,
                               std::vector<std::pair<std::string, Skip>>& skips) {
  std::vector<fs::path> files;
  for (const auto& item : fs::recursive_directory_iterator(dir))
    if (item.is_regular_file()) files.push_back(item.path());
  std::sort(files.begin(), files.end());
  std::set<fs::path> audio_stems;
  std::vector<Entry> entries;
  std::set<std::string> ids;
  for (const fs::path& file : files) {
    if (!is_recording(file)) continue;
    fs::path stem = file;
    stem.replace_extension();
    audio_stems.insert(stem);
    const fs::path txt = fs::path(stem).concat(".txt");
    Entry e;
    e.audio = file;
    e.where = file.string();
    e.id = id_of(fs::relative(file, dir));
    if (!ids.insert(e.id).second) {
      skips.push_back(
          {e.where, {"duplicate id", "another recording is also named \"" + e.id + "\""}});
      continue;
    }
    if (!fs::exists(txt)) {
      skips.push_back(
          {e.where, {"missing transcript", txt.filename().string() + " does not exist"}});
      continue;
    }
    e.text = read_text_file(txt);
    entries.push_back(std::move(e));
  }
  for (const fs::path& file : files) {
    if (file.extension() != ".txt") continue;
    fs::path stem = file;
    stem.replace_extension();
    if (!audio_stems.count(stem))
      skips.push_back({file.string(), {"missing audio", "no recording beside this transcript"}});
  }
  return entries;
}

// The rows of an LJSpeech folder, through the trainers' own reader (malformed rows, missing
// audio, empty text and repeated ids are skipped there, under the reasons it counts them by).
std::vector<Entry> list_metadata(const fs::path& dir,
                                 std::vector<std::pair<std::string, Skip>>& skips) {
  std::vector<train::SkippedRow> skipped;
  std::vector<Entry> entries;
  for (train::CorpusEntry& c : train::list_metadata_rows(dir, skipped))
    entries.push_back(
        {c.path, c.id, c.text, (dir / "metadata.csv").string() + ":" + std::to_string(c.line)});
  for (train::SkippedRow& row : skipped) skips.push_back({row.where, {row.reason, row.detail}});
  return entries;
}

double decibels(double amplitude) { return 20.0 * std::log10(std::max(amplitude, 1e-10)); }

// The share of samples in runs of three or more at full scale.
double clipped_fraction(const std::vector<float>& samples) {
  std::size_t clipped = 0, run = 0;
  for (std::size_t i = 0; i <= samples.size(); ++i) {
    if (i < samples.size() && std::fabs(samples[i]) >= 0.995f) {
      ++run;
      continue;
    }
    if (run >= 3) clipped += run;
    run = 0;
  }
  return samples.empty() ? 0.0 : static_cast<double>(clipped) / static_cast<double>(samples.size());
}

// Trims the silence around the speech and scales the speech to the options' level; `speech`
// receives the seconds from the first loud 10 ms to the last (the padding left out). Throws Skip.
std::vector<float> trim_and_level(std::vector<float> samples, int rate, const IntakeOptions& o,
                                  double& speech_seconds) {
  const std::size_t frame = static_cast<std::size_t>(rate / 100);  // 10 ms
  const std::size_t frames = samples.size() / frame;
  if (frames == 0) throw Skip{"too short or too long", "shorter than 10 ms"};
  std::vector<double> level(frames);
  double loudest = 0.0;
  for (std::size_t f = 0; f < frames; ++f) {
    double sum = 0.0;
    for (std::size_t k = 0; k < frame; ++k)
      sum += double(samples[f * frame + k]) * samples[f * frame + k];
    level[f] = std::sqrt(sum / static_cast<double>(frame));
    loudest = std::max(loudest, level[f]);
  }
  if (decibels(loudest) < -60.0) throw Skip{"silent", "no 10 ms louder than -60 dBFS"};
  const double threshold = loudest * std::pow(10.0, -o.trim_below_peak_db / 20.0);
  std::size_t first = 0, last = frames - 1;
  while (level[first] < threshold) ++first;
  while (level[last] < threshold) --last;
  double active = 0.0;
  std::size_t active_frames = 0;
  for (std::size_t f = first; f <= last; ++f)
    if (level[f] >= threshold) {
      active += level[f] * level[f];
      ++active_frames;
    }
  speech_seconds = static_cast<double>(last + 1 - first) * 0.01;
  const std::size_t pad = static_cast<std::size_t>(o.edge_padding * rate);
  const std::size_t begin = first * frame > pad ? first * frame - pad : 0;
  const std::size_t end = std::min(samples.size(), (last + 1) * frame + pad);
  std::vector<float> speech(samples.begin() + static_cast<std::ptrdiff_t>(begin),
                            samples.begin() + static_cast<std::ptrdiff_t>(end));
  const double rms =
      std::sqrt(active / static_cast<double>(std::max<std::size_t>(active_frames, 1)));
  float peak = 0.0f;
  for (float s : speech) peak = std::max(peak, std::fabs(s));
  double gain = std::pow(10.0, o.speech_level_dbfs / 20.0) / std::max(rms, 1e-9);
  gain = std::min(gain, 0.944 / std::max<double>(peak, 1e-9));  // peak at most -0.5 dBFS
  for (float& s : speech) s = static_cast<float>(s * gain);
  return speech;
}

}  // namespace

double IntakeReport::seconds_kept() const {
  double total = 0.0;
  for (const IntakeRow& r : kept) total += r.seconds;
  return total;
}

IntakeReport run_intake(const IntakeOptions& o) {
  if (!fs::is_directory(o.data_dir))
    throw std::runtime_error(o.data_dir.string() + ": not a folder");
  std::vector<std::pair<std::string, Skip>> skips;
  const std::vector<Entry> entries = fs::exists(o.data_dir / "metadata.csv")
                                         ? list_metadata(o.data_dir, skips)
                                         : list_folder(o.data_dir, skips);
  if (entries.empty() && skips.empty())
    throw std::runtime_error(o.data_dir.string() +
                             ": no recordings (expected metadata.csv and wavs/, or audio files "
                             "each with a same-named .txt)");
  const frontend::TextPipeline pipeline(o.language);
  const fs::path wavs = o.out_dir / "wavs";
  fs::remove_all(wavs);
  fs::create_directories(wavs);

  std::vector<std::optional<IntakeRow>> rows(entries.size());
  std::vector<std::optional<Skip>> problems(entries.size());
  std::vector<double> speech(entries.size(), 0.0);  // seconds between the first and last loud 10 ms
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < entries.size(); i = next++) {
      const Entry& e = entries[i];
      try {
        IntakeRow row;
        row.id = e.id;
        row.text = e.text;
        if (train::spoken_characters(e.text) == 0)
          throw Skip{"no words in the transcript", "its transcript has no letter or digit"};
        try {
          row.phonemes = static_cast<int>(pipeline.process_sentence(e.text).ids.size()) - 2;
        } catch (const std::exception& ex) {
          throw Skip{"text the phonemiser cannot read", ex.what()};
        }
        if (row.phonemes <= 0)
          throw Skip{"text the phonemiser cannot read", "no phonemes in \"" + e.text + "\""};
        audio::Audio a;
        try {
          a = audio::read_audio(e.audio);
        } catch (const std::exception& ex) {
          throw Skip{"unreadable audio", ex.what()};
        }
        if (a.samples.empty()) throw Skip{"empty audio", "no samples"};
        if (clipped_fraction(a.samples) > o.clipped_share)
          throw Skip{"clipped", "more than " +
                                    std::to_string(o.clipped_share * 100.0).substr(0, 4) +
                                    "% of its samples are at full scale"};
        row.source_rate = a.sample_rate;
        row.source_channels = a.source_channels;
        std::vector<float> samples = audio::resample(a.samples, a.sample_rate, o.sample_rate);
        samples = trim_and_level(std::move(samples), o.sample_rate, o, speech[i]);
        row.seconds = static_cast<double>(samples.size()) / o.sample_rate;
        if (speech[i] < o.min_seconds || speech[i] > o.max_seconds) {
          char text[96];
          std::snprintf(text, sizeof text, "%.2f s of speech, outside %.2f..%.0f s", speech[i],
                        o.min_seconds, o.max_seconds);
          throw Skip{"too short or too long", text};
        }
        audio::write_audio(wavs / (row.id + ".wav"), samples.data(), samples.size(), o.sample_rate);
        rows[i] = std::move(row);
      } catch (const Skip& s) {
        problems[i] = s;
      } catch (const std::exception& ex) {
        problems[i] = Skip{"failed", ex.what()};
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, o.threads); ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();

  // The corpus's own pace: a transcript whose phonemes per second are far from it does not
  // belong to its recording.
  std::vector<double> paces;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i]) paces.push_back(rows[i]->phonemes / speech[i]);
  double median = 0.0;
  if (!paces.empty()) {
    std::nth_element(paces.begin(), paces.begin() + static_cast<std::ptrdiff_t>(paces.size() / 2),
                     paces.end());
    median = paces[paces.size() / 2];
  }

  IntakeReport report;
  report.rows_read = entries.size() + skips.size();
  for (const auto& [where, skip] : skips) {
    ++report.skipped[skip.reason];
    report.skip_lines.push_back(where + ": skipped (" + skip.reason + "): " + skip.detail);
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (rows[i] && paces.size() >= 10) {
      // Too many phonemes for the audio, or too few by more than a word's worth of time (a word
      // said alone is slow by nature: its few phonemes do not make a wrong transcript).
      const double pace = rows[i]->phonemes / speech[i];
      const double unexplained = speech[i] - rows[i]->phonemes / median;
      if (pace > median * o.speaking_rate_factor ||
          (pace < median / o.speaking_rate_factor && unexplained > o.unexplained_seconds)) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "%.1f phonemes a second where the corpus has %.1f (%.1f s of speech for %d "
                      "phonemes): is the transcript this recording's?",
                      pace, median, speech[i], rows[i]->phonemes);
        problems[i] = Skip{"speaking rate far from the corpus's", text};
        fs::remove(wavs / (rows[i]->id + ".wav"));
        rows[i].reset();
      }
    }
    if (rows[i]) {
      if (rows[i]->source_rate < o.low_source_rate)
        report.warnings.push_back(
            entries[i].where + ": kept, but recorded at " + std::to_string(rows[i]->source_rate) +
            " Hz: it has no sound above " + std::to_string(rows[i]->source_rate / 2) + " Hz");
      if (rows[i]->source_channels > 1)
        report.warnings.push_back(entries[i].where + ": kept, its " +
                                  std::to_string(rows[i]->source_channels) +
                                  " channels mixed down to one");
      report.kept.push_back(std::move(*rows[i]));
    } else {
      ++report.skipped[problems[i]->reason];
      report.skip_lines.push_back(entries[i].where + ": skipped (" + problems[i]->reason +
                                  "): " + problems[i]->detail);
    }
  }
  std::string metadata;
  for (const IntakeRow& r : report.kept) metadata += r.id + "|" + r.text + "\n";
  kernels::write_file_atomically(o.out_dir / "metadata.csv", metadata);
  return report;
}

double IntakeReport::seconds_of(const std::vector<std::string>& ids) const {
  const std::set<std::string> wanted(ids.begin(), ids.end());
  double total = 0.0;
  for (const IntakeRow& r : kept)
    if (wanted.count(r.id)) total += r.seconds;
  return total;
}

void to_json(nlohmann::json& j, const IntakeReport& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const IntakeRow& row : r.kept)
    rows.push_back({{"id", row.id},
                    {"text", row.text},
                    {"seconds", row.seconds},
                    {"source_rate", row.source_rate},
                    {"source_channels", row.source_channels},
                    {"phonemes", row.phonemes}});
  j = {{"rows_read", r.rows_read}, {"minutes_kept", r.seconds_kept() / 60.0},
       {"skipped", r.skipped},     {"skipped_rows", r.skip_lines},
       {"warnings", r.warnings},   {"kept", rows}};
}

void from_json(const nlohmann::json& j, IntakeReport& r) {
  j.at("rows_read").get_to(r.rows_read);
  j.at("skipped").get_to(r.skipped);
  j.at("skipped_rows").get_to(r.skip_lines);
  j.at("warnings").get_to(r.warnings);
  r.kept.clear();
  for (const nlohmann::json& row : j.at("kept"))
    r.kept.push_back({row.at("id").get<std::string>(), row.at("text").get<std::string>(),
                      row.at("seconds").get<double>(), row.at("source_rate").get<int>(),
                      row.value("source_channels", 1), row.at("phonemes").get<int>()});
}

std::string format_intake_summary(const IntakeReport& r) {
  std::ostringstream out;
  char line[160];
  std::snprintf(line, sizeof line, "  %-40s %6zu rows  %6.1f min\n", "kept", r.kept.size(),
                r.seconds_kept() / 60.0);
  out << line;
  for (const auto& [reason, count] : r.skipped) {
    std::snprintf(line, sizeof line, "  skipped: %-31s %6zu rows\n", reason.c_str(), count);
    out << line;
  }
  if (!r.warnings.empty()) {
    std::snprintf(line, sizeof line, "  %-40s %6zu rows\n", "kept with a warning",
                  r.warnings.size());
    out << line;
  }
  return out.str();
}

void require_enough_audio(const IntakeReport& report, double minimum_minutes) {
  const double minutes = report.seconds_kept() / 60.0;
  if (minutes >= minimum_minutes) return;
  char text[256];
  std::snprintf(text, sizeof text,
                "only %.1f minutes of usable speech (%zu recordings) were found; a voice needs at "
                "least %.0f: record about %.0f minutes more (20 in all make a good voice)",
                minutes, report.kept.size(), minimum_minutes,
                std::ceil(std::max(minimum_minutes - minutes, 1.0)));
  throw std::runtime_error(text);
}

}  // namespace tts::creation
