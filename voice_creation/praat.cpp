#include "tts/voice_creation/praat.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "tts/kernels/atomic_file.h"

namespace tts::creation {

extern const char praat_voice_script[];  // made from tools/quality/praat_voice.praat

namespace {

// Single quotes for a POSIX shell.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> split(const std::string& line, char by) {
  std::vector<std::string> out;
  std::stringstream s(line);
  std::string part;
  while (std::getline(s, part, by)) out.push_back(part);
  return out;
}

}  // namespace

PraatPool pool_measures(const std::vector<PraatMeasure>& measures, const PitchRange& range) {
  PraatPool pool;
  long voiced = 0;
  double hnr = 0.0;
  SemitoneSpread spread(range);
  std::vector<double> all;
  for (const PraatMeasure& m : measures) {
    voiced += m.hnr_voiced;
    hnr += m.hnr_sum;
    for (double hz : m.f0)
      if (spread.add(hz)) all.push_back(hz);
  }
  if (voiced > 0) pool.hnr_db = hnr / static_cast<double>(voiced);
  if (spread.frames() >= 2.0) pool.f0_sd_semitones = spread.sd();
  if (!all.empty()) {
    std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(all.size() / 2),
                     all.end());
    pool.f0_median_hz = all[all.size() / 2];
  }
  return pool;
}

std::vector<double> voiced_frames(const std::vector<PraatMeasure>& measures) {
  std::vector<double> all;
  for (const PraatMeasure& m : measures) all.insert(all.end(), m.f0.begin(), m.f0.end());
  return all;
}

bool praat_available() { return std::system("command -v praat >/dev/null 2>&1") == 0; }

std::map<std::filesystem::path, PraatMeasure> run_praat(
    const std::vector<std::filesystem::path>& files, const std::filesystem::path& work) {
  std::filesystem::create_directories(work);
  const auto script = work / "praat_voice.praat", list = work / "praat-files.txt";
  kernels::write_file_atomically(script, praat_voice_script);
  std::string names;
  for (const auto& f : files) names += std::filesystem::absolute(f).string() + "\n";
  kernels::write_file_atomically(list, names);
  const std::string command =
      "praat --run " + quoted(script.string()) + " " + quoted(list.string()) + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run praat");
  std::string output;
  char buffer[65536];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    output.append(buffer, got);
  const int status = pclose(pipe);
  if (status != 0)
    throw std::runtime_error("praat failed (status " + std::to_string(WEXITSTATUS(status)) +
                             "): " + output.substr(0, 400));
  std::map<std::filesystem::path, PraatMeasure> out;
  std::stringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> fields = split(line, '\t');
    if (fields.size() < 6 || fields[0] != "file") continue;
    PraatMeasure m;
    m.hnr_voiced = std::stol(fields[2]);
    m.hnr_sum = std::stod(fields[3]);
    if (fields.size() > 6)
      for (const std::string& hz : split(fields[6], ' '))
        if (!hz.empty()) m.f0.push_back(std::stod(hz));
    out[fields[1]] = std::move(m);
  }
  return out;
}

}  // namespace tts::creation
