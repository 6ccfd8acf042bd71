#include "tts/voice_creation/creation_state.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "tts/kernels/atomic_file.h"
#include "tts/voice_creation/create_voice.h"

namespace fs = std::filesystem;

namespace tts::creation {

namespace {

nlohmann::json arguments_of(const VoiceCreationOptions& o) {
  nlohmann::json j = {{"name", o.name},
                      {"data", o.data_dir.string()},
                      {"language", o.language},
                      {"espeak_voice", o.espeak_voice},
                      {"base", o.base_dir.string()},
                      {"vocoder", o.vocoder_dir.string()},
                      {"seed", o.seed},
                      {"budget_minutes", o.budget_minutes}};
  if (o.steps) j["steps"] = *o.steps;
  if (o.vocoder_steps) j["vocoder_steps"] = *o.vocoder_steps;
  if (!o.held_out_file.empty()) j["held_out"] = o.held_out_file.string();
  return j;
}

// `name` with the folder `from` at its start replaced by `to` (unchanged when it is not under it).
std::string moved(const std::string& name, const std::string& from, const std::string& to) {
  if (name == from) return to;
  if (name.size() > from.size() && name.compare(0, from.size(), from) == 0 &&
      name[from.size()] == '/')
    return to + name.substr(from.size());
  return name;
}

void move_names(nlohmann::json& value, const std::string& from, const std::string& to) {
  if (value.is_string()) {
    value = moved(value.get<std::string>(), from, to);
  } else if (value.is_array() || value.is_object()) {
    for (nlohmann::json& item : value) move_names(item, from, to);
  }
}

// The trainers' checkpoints record the corpus folders they train on by absolute name, and refuse
// to resume on other ones; in a work folder that was moved (or reached by another name), those
// folders moved with it, so their names are brought along.
void follow_moved_work_folder(const fs::path& work, const std::string& was) {
  const std::string now = fs::weakly_canonical(work).string();
  if (was.empty() || was == now) return;
  for (const fs::path& checkpoint :
       {work / "acoustic" / "checkpoint.json", work / "vocoder" / "run" / "checkpoint.json"}) {
    std::ifstream in(checkpoint);
    if (!in) continue;
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.contains("data")) continue;
    move_names(j["data"], was, now);
    kernels::write_file_atomically(checkpoint, j.dump(1) + "\n");
  }
}

}  // namespace

bool CreationState::finished(const std::string& stage) const {
  return std::find(done.begin(), done.end(), stage) != done.end();
}

CreationState open_creation_state(const VoiceCreationOptions& o) {
  fs::create_directories(o.work_dir);
  kernels::remove_stale_temporaries(o.work_dir);
  CreationState state;
  state.arguments = arguments_of(o);
  const fs::path file = o.work_dir / "state.json";
  if (!fs::exists(file)) {
    save_creation_state(o.work_dir, state);
    return state;
  }
  std::ifstream in(file);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("arguments"))
    throw std::runtime_error(file.string() + ": not a state this command wrote; remove " +
                             o.work_dir.string() + " to start again");
  std::string changed;
  for (const auto& [key, value] : state.arguments.items())
    if (!j["arguments"].contains(key) || j["arguments"][key] != value)
      changed += (changed.empty() ? "" : ", ") + key;
  for (const auto& [key, value] : j["arguments"].items())
    if (!state.arguments.contains(key)) changed += (changed.empty() ? "" : ", ") + key;
  if (!changed.empty())
    throw std::runtime_error(o.work_dir.string() + " holds a voice begun with other arguments (" +
                             changed +
                             "): run with the same arguments to resume it, or pass "
                             "--restart to begin again");
  follow_moved_work_folder(o.work_dir, j.value("work", std::string()));
  j.at("done").get_to(state.done);
  if (j.contains("plan") && !j["plan"].is_null()) state.plan = j["plan"].get<TrainingPlan>();
  if (j.contains("vocoder_steps") && !j["vocoder_steps"].is_null())
    state.vocoder_steps = j["vocoder_steps"].get<int64_t>();
  if (j.contains("vocoder") && !j["vocoder"].is_null())
    state.vocoder = j["vocoder"].get<VocoderChoice>();
  j.at("elapsed_seconds").get_to(state.elapsed_seconds);
  j.at("stage_seconds").get_to(state.stage_seconds);
  return state;
}

void save_creation_state(const fs::path& work, const CreationState& s) {
  nlohmann::json j = {
      {"work", fs::weakly_canonical(work).string()},
      {"arguments", s.arguments},
      {"done", s.done},
      {"plan", s.plan ? nlohmann::json(*s.plan) : nlohmann::json()},
      {"vocoder_steps", s.vocoder_steps ? nlohmann::json(*s.vocoder_steps) : nlohmann::json()},
      {"vocoder", s.vocoder ? nlohmann::json(*s.vocoder) : nlohmann::json()},
      {"elapsed_seconds", s.elapsed_seconds},
      {"stage_seconds", s.stage_seconds}};
  kernels::write_file_atomically(work / "state.json", j.dump(2) + "\n");
}

}  // namespace tts::creation
