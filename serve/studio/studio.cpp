#include "tts/serve/studio.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "studio_job.h"
#include "studio_take.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_search.h"
#include "tts/kernels/atomic_file.h"
#include "tts/serve/speech_service.h"

namespace fs = std::filesystem;

namespace tts::serve {

using nlohmann::json;

namespace {

// A voice's recordings: DIR/NAME/studio.json holds what the studio knows (its language, the takes
// with their prompt and length, the prompts skipped); metadata.csv and wavs/ are made from it.
struct Recordings {
  std::string language;
  std::map<std::string, std::pair<int, double>> takes;  // id: prompt index, seconds
  std::set<int> skipped;

  double seconds() const {
    double s = 0;
    for (const auto& [id, take] : takes) s += take.second;
    return s;
  }
  bool recorded(int prompt) const {
    for (const auto& [id, take] : takes)
      if (take.first == prompt) return true;
    return false;
  }
};

Recordings read_recordings(const fs::path& dir) {
  Recordings r;
  std::ifstream in(dir / "studio.json");
  if (!in) return r;
  const json j = json::parse(in, nullptr, false);
  if (!j.is_object()) return r;
  r.language = j.value("language", "");
  const json takes = j.value("takes", json::object()), skipped = j.value("skipped", json::array());
  for (const auto& [id, take] : takes.items())
    r.takes[id] = {take.value("prompt", 0), take.value("seconds", 0.0)};
  for (int p : skipped) r.skipped.insert(p);
  return r;
}

void write_recordings(const fs::path& dir, const Recordings& r,
                      const std::vector<std::string>& prompts) {
  json takes = json::object();
  std::string metadata;
  for (const auto& [id, take] : r.takes) {
    takes[id] = {{"prompt", take.first}, {"seconds", take.second}};
    metadata += id + "|" + prompts.at(static_cast<std::size_t>(take.first)) + "\n";
  }
  kernels::write_file_atomically(
      dir / "studio.json",
      json{{"language", r.language}, {"takes", takes}, {"skipped", r.skipped}}.dump(1));
  kernels::write_file_atomically(dir / "metadata.csv", metadata);
}

// The prompt to record next: the first neither recorded nor skipped, else the first skipped one
// not recorded; -1 when every prompt is recorded.
int next_prompt(const Recordings& r, std::size_t count) {
  for (int i = 0; i < static_cast<int>(count); ++i)
    if (!r.recorded(i) && !r.skipped.count(i)) return i;
  for (int i = 0; i < static_cast<int>(count); ++i)
    if (!r.recorded(i)) return i;
  return -1;
}

std::vector<std::string> read_prompts(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> prompts;
  for (std::string line; std::getline(in, line);) {
    for (char& c : line)
      if (c == '|' || c == '\r' || c == '\t') c = ' ';
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '#') continue;
    prompts.push_back(line.substr(first, line.find_last_not_of(' ') - first + 1));
  }
  return prompts;
}

// The BCP 47 tag voices create is given for a prompt file's language.
std::string language_tag(const std::string& code) {
  static const std::map<std::string, std::string> kTags = {
      {"en", "en-US"}, {"es", "es-ES"}, {"fr", "fr-FR"}, {"it", "it-IT"}, {"ru", "ru-RU"}};
  const auto found = kTags.find(code);
  return found == kTags.end() ? code : found->second;
}

std::string megabytes(std::uint64_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MB";
}

}  // namespace

std::size_t StudioOptions::max_take_bytes() const {
  return static_cast<std::size_t>(std::ceil(max_clip_seconds * 96000)) * 2 + 4096;
}

bool studio_name_ok(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '-') return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

fs::path studio_prompts_dir() {
  const fs::path voices = engine::voice_search_path().back();  // source voices/ or share/tts/voices
  std::error_code ec;
  const fs::path source = voices.parent_path() / "voice_creation" / "prompts";
  if (fs::is_directory(source, ec)) return source;
  return voices.parent_path() / "prompts";
}

Studio::Studio(StudioOptions options, SpeechService& service)
    : options_(std::move(options)), service_(service) {
  if (options_.prompts.empty()) options_.prompts = studio_prompts_dir();
  std::error_code ec;
  fs::create_directories(options_.dir, ec);
  if (!fs::is_directory(options_.dir))
    throw std::runtime_error("--studio " + options_.dir.string() + ": cannot make the folder");
  for (const auto& entry : fs::directory_iterator(options_.prompts, ec)) {
    if (entry.path().extension() != ".txt") continue;
    auto sentences = read_prompts(entry.path());
    if (!sentences.empty()) prompts_.emplace_back(entry.path().stem().string(), sentences);
  }
  if (prompts_.empty())
    throw std::runtime_error("--studio: no prompts (LANG.txt, one sentence a line) in " +
                             options_.prompts.string() + " (--studio-prompts DIR names another)");
  std::sort(prompts_.begin(), prompts_.end());
  for (const auto& entry : fs::directory_iterator(made_dir(), ec))
    if (fs::is_regular_file(entry.path() / "voice.json"))
      serve_made_voice(entry.path(), entry.path().filename().string());
}

Studio::~Studio() { job_.reset(); }

fs::path Studio::voice_dir(const std::string& name) const {
  if (!studio_name_ok(name))
    throw StudioError(400, "the voice's name \"" + name +
                               "\" is not allowed: use 1 to 64 letters, digits, - and _");
  return options_.dir / name;
}

const std::vector<std::string>& Studio::prompts(const std::string& language) const {
  for (const auto& [code, sentences] : prompts_)
    if (code == language) return sentences;
  std::string known;
  for (const auto& p : prompts_) known += (known.empty() ? "" : ", ") + p.first;
  throw StudioError(400, "no prompts in language \"" + language + "\" (there are: " + known + ")");
}

std::uint64_t Studio::disk_use() const {
  std::uint64_t bytes = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(options_.dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) bytes += it->file_size(ec);
  return bytes;
}

void Studio::serve_made_voice(const fs::path& folder, const std::string& name) {
  service_.add_voice({name, engine::Voice::load(folder)});
}

json Studio::overview() const {
  json languages = json::array(), voices = json::array();
  for (const auto& [code, sentences] : prompts_)
    languages.push_back({{"code", code}, {"prompts", sentences.size()}});
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(options_.dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (!studio_name_ok(name) || !fs::is_regular_file(entry.path() / "studio.json")) continue;
      const Recordings r = read_recordings(entry.path());
      voices.push_back({{"name", name},
                        {"language", r.language},
                        {"clips", r.takes.size()},
                        {"minutes", r.seconds() / 60}});
    }
  }
  return {{"languages", languages},
          {"voices", voices},
          {"limits",
           {{"max_clip_seconds", options_.max_clip_seconds},
            {"min_clip_seconds", options_.min_clip_seconds},
            {"max_clips", options_.max_clips},
            {"max_disk_bytes", options_.max_disk_bytes},
            {"min_free_bytes", options_.min_free_bytes},
            {"wanted_minutes", options_.wanted_minutes},
            {"least_minutes", options_.least_minutes}}},
          {"disk_bytes", disk_use()},
          {"job", job()}};
}

json Studio::session(const std::string& name, const std::string& language) const {
  const fs::path dir = voice_dir(name);
  std::lock_guard<std::mutex> lock(mutex_);
  const Recordings r = read_recordings(dir);
  const std::string lang = r.language.empty() ? language : r.language;
  const auto& sentences = prompts(lang);
  const int next = next_prompt(r, sentences.size());
  json prompt = nullptr;
  if (next >= 0) prompt = {{"index", next}, {"number", next + 1}, {"text", sentences.at(next)}};
  return {{"name", name},
          {"language", lang},
          {"prompts", sentences.size()},
          {"prompt", prompt},
          {"clips", r.takes.size()},
          {"skipped", r.skipped.size()},
          {"minutes", r.seconds() / 60},
          {"wanted_minutes", options_.wanted_minutes},
          {"least_minutes", options_.least_minutes},
          {"minutes_left", std::max(0.0, options_.wanted_minutes - r.seconds() / 60)}};
}

json Studio::add_take(const std::string& name, const std::string& language, int prompt,
                      const std::string& wav) {
  const fs::path dir = voice_dir(name);
  const TakeMeasure m = check_take(wav, {options_.min_clip_seconds, options_.max_clip_seconds});
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Recordings r = read_recordings(dir);
    if (r.language.empty()) r.language = language;
    const auto& sentences = prompts(r.language);
    if (prompt < 0 || prompt >= static_cast<int>(sentences.size()))
      throw StudioError(400, "prompt " + std::to_string(prompt) + " is not one of the " +
                                 std::to_string(sentences.size()) + " prompts (from 0)");
    char id[32];
    std::snprintf(id, sizeof id, "%s-%04d", r.language.c_str(), prompt + 1);
    if (!r.takes.count(id) && static_cast<int>(r.takes.size()) >= options_.max_clips)
      throw StudioError(507, "this voice has " + std::to_string(r.takes.size()) +
                                 " takes, the most the studio keeps");
    if (disk_use() + wav.size() > options_.max_disk_bytes)
      throw StudioError(507, "the studio's folder would pass its limit of " +
                                 megabytes(options_.max_disk_bytes) + " (--studio-max-disk)");
    fs::create_directories(dir / "wavs");
    kernels::write_file_atomically(dir / "wavs" / (std::string(id) + ".wav"), wav);
    r.takes[id] = {prompt, m.seconds};
    r.skipped.erase(prompt);
    write_recordings(dir, r, sentences);
  }
  json s = session(name, language);
  s["take"] = {{"seconds", m.seconds},
               {"sample_rate", m.sample_rate},
               {"peak_dbfs", m.peak_dbfs},
               {"rms_dbfs", m.rms_dbfs}};
  return s;
}

json Studio::skip(const std::string& name, const std::string& language, int prompt) {
  const fs::path dir = voice_dir(name);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Recordings r = read_recordings(dir);
    if (r.language.empty()) r.language = language;
    const auto& sentences = prompts(r.language);
    if (prompt < 0 || prompt >= static_cast<int>(sentences.size()))
      throw StudioError(400, "prompt " + std::to_string(prompt) + " is not one of the " +
                                 std::to_string(sentences.size()) + " prompts (from 0)");
    r.skipped.insert(prompt);
    fs::create_directories(dir);
    write_recordings(dir, r, sentences);
  }
  return session(name, language);
}

json Studio::create(const std::string& name) {
  const fs::path dir = voice_dir(name);
  std::lock_guard<std::mutex> lock(mutex_);
  if (job_ && job_->running())
    throw StudioError(
        409, "a voice job is running (" + job_->state().value("voice", "") + "): one at a time");
  const Recordings r = read_recordings(dir);
  if (r.takes.empty()) throw StudioError(400, "voice \"" + name + "\" has no takes to learn from");
  std::error_code ec;
  const auto space = fs::space(options_.dir, ec);
  if (ec || space.available < options_.min_free_bytes)
    throw StudioError(507, "only " + megabytes(ec ? 0 : space.available) + " free on the disk of " +
                               options_.dir.string() + "; a voice job needs " +
                               megabytes(options_.min_free_bytes) + " (--studio-min-free)");
  const fs::path work = options_.dir / ".work" / name;
  fs::create_directories(options_.dir / ".work");
  fs::create_directories(made_dir());
  // The job resumes from its work folder only on the takes and arguments it began with: after any
  // take since, or with other --studio-create-args, it begins again.
  std::ostringstream takes;
  for (const auto& [id, take] : r.takes) takes << id << ' ' << take.second << '\n';
  for (const std::string& arg : options_.create_args) takes << arg << '\n';
  const fs::path fingerprint = options_.dir / ".work" / (name + ".takes");
  std::ifstream before(fingerprint);
  std::stringstream was;
  was << before.rdbuf();
  if (was.str() != takes.str()) fs::remove_all(work, ec);
  kernels::write_file_atomically(fingerprint, takes.str());

  std::vector<std::string> args = {"voices",
                                   "create",
                                   name,
                                   "--data",
                                   dir.string(),
                                   "--lang",
                                   language_tag(r.language),
                                   "--out",
                                   (made_dir() / name).string(),
                                   "--work",
                                   work.string(),
                                   "--min-minutes",
                                   std::to_string(options_.least_minutes),
                                   "--source",
                                   "recorded in tts serve's studio",
                                   "--progress-json"};
  args.insert(args.end(), options_.create_args.begin(), options_.create_args.end());
  job_.reset();  // the previous job, ended
  job_ = std::make_unique<StudioJob>(name, options_.tts, args,
                                     options_.dir / ".work" / (name + ".log"),
                                     [this, name](const json& done) {
                                       serve_made_voice(done.at("folder").get<std::string>(), name);
                                     });
  return job_->state();
}

json Studio::job() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return job_ ? job_->state() : json{{"state", "idle"}};
}

json Studio::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!job_ || !job_->running()) throw StudioError(409, "no voice job is running");
  job_->cancel();
  return job_->state();
}

}  // namespace tts::serve
