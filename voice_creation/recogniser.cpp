#include "tts/voice_creation/recogniser.h"

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tts/audio/audio_file.h"

namespace fs = std::filesystem;

namespace tts::creation {

namespace {

const fs::path kModel = "/usr/share/pocketsphinx/model/en-us";
constexpr int kRecognitionRate = 16000;

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string first_line_of(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "";
  char line[256] = {};
  const bool got = std::fgets(line, sizeof line, pipe) != nullptr;
  pclose(pipe);
  std::string text = got ? line : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// Mono 16-bit little-endian samples, what pocketsphinx_batch reads with -adcin.
void write_raw_levelled(const fs::path& path, const std::vector<float>& samples, double gain) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(path.string() + ": cannot write");
  std::vector<char> bytes(samples.size() * 2);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double v = std::clamp(static_cast<double>(samples[i]) * gain, -1.0, 32767.0 / 32768.0);
    const auto s = static_cast<int16_t>(std::lrint(v * 32768.0));
    bytes[2 * i] = static_cast<char>(s & 0xff);
    bytes[2 * i + 1] = static_cast<char>((s >> 8) & 0xff);
  }
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error(path.string() + ": cannot write");
}

// One pocketsphinx_batch process over the utterances listed in `control`; returns its exit status.
int run_batch(const fs::path& raw_dir, const fs::path& control, const fs::path& hypotheses,
              const fs::path& log) {
  const std::string command =
      "pocketsphinx_batch -adcin yes -cepdir " + shell_quoted(raw_dir.string()) +
      " -cepext .raw -ctl " + shell_quoted(control.string()) + " -hyp " +
      shell_quoted(hypotheses.string()) + " -hmm " + shell_quoted((kModel / "en-us").string()) +
      " -lm " + shell_quoted((kModel / "en-us.lm.bin").string()) + " -dict " +
      shell_quoted((kModel / "cmudict-en-us.dict").string()) + " -logfn " +
      shell_quoted(log.string()) + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// "words of the utterance (ID SCORE)" lines into ID -> words.
std::map<std::string, std::string> read_hypotheses(const fs::path& path) {
  std::map<std::string, std::string> heard;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const std::size_t open = line.rfind('(');
    if (open == std::string::npos) continue;
    std::istringstream tail(line.substr(open + 1));
    std::string id;
    tail >> id;
    std::string words = line.substr(0, open);
    while (!words.empty() && words.back() == ' ') words.pop_back();
    heard[id] = words;
  }
  return heard;
}

std::string tail_of_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  return text.size() > 400 ? text.substr(text.size() - 400) : text;
}

}  // namespace

std::optional<std::string> recogniser_missing() {
  if (std::system("command -v pocketsphinx_batch >/dev/null 2>&1") != 0)
    return "pocketsphinx is not installed (Debian packages pocketsphinx and pocketsphinx-en-us)";
  for (const char* file : {"en-us/mdef", "en-us.lm.bin", "cmudict-en-us.dict"})
    if (!fs::exists(kModel / file))
      return "the recogniser's English model " + (kModel / file).string() +
             " is missing (Debian package pocketsphinx-en-us)";
  return std::nullopt;
}

std::string recogniser_version() {
  const std::string versions = first_line_of(
      "dpkg-query -W -f '${Package} ${Version}, ' pocketsphinx pocketsphinx-en-us 2>/dev/null");
  return versions.empty() ? "pocketsphinx_batch"
                          : versions.substr(0, versions.size() - 2) + " (pocketsphinx_batch)";
}

double active_speech_level_dbov(const std::vector<float>& samples, int sample_rate) {
  const std::size_t frame = static_cast<std::size_t>(std::max(1, sample_rate / 100));
  std::vector<double> energies;
  for (std::size_t start = 0; start + frame <= samples.size(); start += frame) {
    double sum = 0.0;
    for (std::size_t i = start; i < start + frame; ++i)
      sum += static_cast<double>(samples[i]) * samples[i];
    energies.push_back(sum / static_cast<double>(frame));
  }
  if (energies.empty()) return -std::numeric_limits<double>::infinity();
  const double loudest = *std::max_element(energies.begin(), energies.end());
  if (loudest <= 0.0) return -std::numeric_limits<double>::infinity();
  const double floor = loudest * 1e-3;  // 30 dB below the loudest frame
  double sum = 0.0;
  int counted = 0;
  for (double e : energies)
    if (e >= floor) {
      sum += e;
      ++counted;
    }
  return 10.0 * std::log10(sum / counted);
}

std::vector<std::string> recognise_english(const std::vector<fs::path>& files, const fs::path& work,
                                           int jobs) {
  if (const auto missing = recogniser_missing()) throw std::runtime_error(*missing);
  const fs::path raw_dir = work / "levelled";
  fs::create_directories(raw_dir);
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const audio::Audio read = audio::read_audio(files[i], kRecognitionRate);
    const double level = active_speech_level_dbov(read.samples, kRecognitionRate);
    const double gain =
        std::isfinite(level) ? std::pow(10.0, (kRecognitionLevelDbov - level) / 20.0) : 1.0;
    char id[32];
    std::snprintf(id, sizeof id, "u%05zu", i);
    write_raw_levelled(raw_dir / (std::string(id) + ".raw"), read.samples, gain);
    ids.push_back(id);
  }
  jobs = std::clamp(jobs, 1, std::max<int>(1, static_cast<int>(files.size())));
  std::vector<std::thread> threads;
  std::vector<int> statuses(static_cast<std::size_t>(jobs), 0);
  for (int job = 0; job < jobs; ++job) {
    const fs::path control = work / ("batch-" + std::to_string(job) + ".ctl");
    {
      std::ofstream out(control);
      for (std::size_t i = static_cast<std::size_t>(job); i < ids.size();
           i += static_cast<std::size_t>(jobs))
        out << ids[i] << '\n';
    }
    threads.emplace_back([&, job, control] {
      const std::string n = std::to_string(job);
      statuses[static_cast<std::size_t>(job)] = run_batch(
          raw_dir, control, work / ("batch-" + n + ".hyp"), work / ("batch-" + n + ".log"));
    });
  }
  for (std::thread& t : threads) t.join();
  std::map<std::string, std::string> heard;
  for (int job = 0; job < jobs; ++job) {
    const fs::path log = work / ("batch-" + std::to_string(job) + ".log");
    if (statuses[static_cast<std::size_t>(job)] != 0)
      throw std::runtime_error("pocketsphinx_batch failed (status " +
                               std::to_string(statuses[static_cast<std::size_t>(job)]) +
                               "); its log " + log.string() + " ends: " + tail_of_file(log));
    for (auto& [id, words] : read_hypotheses(work / ("batch-" + std::to_string(job) + ".hyp")))
      heard[id] = std::move(words);
  }
  std::vector<std::string> out;
  for (const std::string& id : ids) {
    const auto found = heard.find(id);
    // An utterance the decoder found nothing in has no line: it heard no words.
    out.push_back(found == heard.end() ? std::string() : found->second);
  }
  return out;
}

}  // namespace tts::creation
