// voices.json, the index of the voices a folder or a web site offers: writing and checking it.
#include <nlohmann/json.hpp>
#include <set>

#include "tts/voice_sharing/voice_index.h"

namespace tts::sharing {

namespace {

[[noreturn]] void refuse_index(const std::string& where, const std::string& problem) {
  throw IndexError(where + ": " + problem);
}

const nlohmann::json& index_field(const nlohmann::json& j, const char* key,
                                  const std::string& where) {
  if (!j.contains(key)) refuse_index(where, std::string("\"") + key + "\" is missing");
  return j.at(key);
}

std::string optional_text(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return "";
  if (!j.at(key).is_string()) refuse_index(where, std::string("\"") + key + "\" is not a string");
  return j.at(key).get<std::string>();
}

bool is_sha256_text(const std::string& text) {
  if (text.size() != 64) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

IndexedVoice parse_indexed_voice(const nlohmann::json& j, const std::string& index_where) {
  if (!j.is_object()) refuse_index(index_where, "an entry of \"voices\" is not an object");
  const nlohmann::json& name = index_field(j, "name", index_where);
  if (!name.is_string() || !is_valid_voice_name(name.get<std::string>()))
    refuse_index(index_where, "\"name\" " + name.dump() +
                                  " is not a voice name (1 to 100 of A-Z a-z 0-9 . _ -, not "
                                  "starting with .)");
  IndexedVoice v;
  v.name = name.get<std::string>();
  const std::string where = index_where + ": voice \"" + v.name + "\"";
  const nlohmann::json& languages = index_field(j, "languages", where);
  if (!languages.is_array() || languages.empty())
    refuse_index(where, "\"languages\" must be a non-empty array of BCP 47 tags");
  for (const nlohmann::json& tag : languages) {
    if (!tag.is_string() || tag.get<std::string>().empty())
      refuse_index(where, "\"languages\" holds " + tag.dump() + ", not a BCP 47 tag");
    v.languages.push_back(tag.get<std::string>());
  }
  v.speaker = optional_text(j, "speaker", where);
  v.sex = optional_text(j, "sex", where);
  v.licence = optional_text(j, "licence", where);
  v.description = optional_text(j, "description", where);
  const nlohmann::json& bytes = index_field(j, "bytes", where);
  if (!bytes.is_number_unsigned() || bytes.get<std::uint64_t>() == 0 ||
      bytes.get<std::uint64_t>() > kMaxArchiveBytes)
    refuse_index(where, "\"bytes\" " + bytes.dump() +
                            " is not an archive's size (a positive integer up to 4 GiB)");
  v.bytes = bytes.get<std::uint64_t>();
  const nlohmann::json& sha = index_field(j, "sha256", where);
  if (!sha.is_string() || !is_sha256_text(sha.get<std::string>()))
    refuse_index(where, "\"sha256\" " + sha.dump() + " is not 64 lower-case hex digits");
  v.sha256 = sha.get<std::string>();
  const nlohmann::json& url = index_field(j, "url", where);
  if (!url.is_string() || url.get<std::string>().empty())
    refuse_index(where, "\"url\" must be a non-empty string");
  v.url = url.get<std::string>();
  return v;
}

}  // namespace

std::string index_json(const VoiceIndex& index) {
  // In the order docs/voice-format.md gives them, for people reading the file.
  nlohmann::ordered_json voices = nlohmann::ordered_json::array();
  for (const IndexedVoice& v : index.voices) {
    nlohmann::ordered_json entry = {{"name", v.name},
                                    {"languages", v.languages},
                                    {"bytes", v.bytes},
                                    {"sha256", v.sha256},
                                    {"url", v.url},
                                    {"licence", v.licence},
                                    {"description", v.description}};
    if (!v.speaker.empty()) entry["speaker"] = v.speaker;
    if (!v.sex.empty()) entry["sex"] = v.sex;
    voices.push_back(entry);
  }
  const nlohmann::ordered_json j = {
      {"format", kIndexFormat}, {"format_version", kIndexFormatVersion}, {"voices", voices}};
  return j.dump(2) + "\n";
}

VoiceIndex parse_index(const std::string& text, const std::string& where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    refuse_index(where, std::string("not JSON: ") + e.what());
  }
  if (!j.is_object()) refuse_index(where, "not a JSON object");
  const nlohmann::json& format = index_field(j, "format", where);
  if (!format.is_string() || format.get<std::string>() != kIndexFormat)
    refuse_index(where,
                 std::string("\"format\" is not \"") + kIndexFormat + "\"; not a voice index");
  const nlohmann::json& version = index_field(j, "format_version", where);
  if (!version.is_number_integer() || version.get<long long>() < 1)
    refuse_index(where, "\"format_version\" must be a positive integer");
  if (version.get<long long>() > kIndexFormatVersion)
    refuse_index(where, "format_version " + std::to_string(version.get<long long>()) +
                            " is newer than this build reads (" +
                            std::to_string(kIndexFormatVersion) +
                            "): the index was made by a newer tts; upgrade tts to use it");
  const nlohmann::json& voices = index_field(j, "voices", where);
  if (!voices.is_array()) refuse_index(where, "\"voices\" must be an array");
  VoiceIndex index;
  std::set<std::string> names;
  for (const nlohmann::json& entry : voices) {
    IndexedVoice v = parse_indexed_voice(entry, where);
    if (!names.insert(v.name).second)
      refuse_index(where, "voice \"" + v.name + "\" is listed twice");
    index.voices.push_back(std::move(v));
  }
  return index;
}

}  // namespace tts::sharing
