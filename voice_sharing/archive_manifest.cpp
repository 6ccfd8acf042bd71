#include "archive_manifest.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "tts/engine/voice.h"
#include "tts/voice_sharing/voice_archive.h"

namespace tts::sharing {

namespace {

[[noreturn]] void refuse(const std::string& where, const std::string& problem) {
  throw ArchiveError(where + ": " + problem);
}

const nlohmann::json& field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) refuse(where, std::string("\"") + key + "\" is missing");
  return j.at(key);
}

int version_field(const nlohmann::json& j, const char* key, int newest, const std::string& where) {
  const nlohmann::json& v = field(j, key, where);
  if (!v.is_number_integer() || v.get<long long>() < 1)
    refuse(where, std::string("\"") + key + "\" must be a positive integer");
  if (v.get<long long>() > newest)
    refuse(where, std::string(key) + " " + std::to_string(v.get<long long>()) +
                      " is newer than this build reads (" + std::to_string(newest) +
                      "): the archive was made by a newer tts; upgrade tts to install it");
  return v.get<int>();
}

}  // namespace

std::string hex32(std::uint32_t value) {
  char text[9];
  std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(value));
  return text;
}

bool is_valid_voice_name(const std::string& name) {
  if (name.empty() || name.size() > 100 || name.front() == '.') return false;
  for (char c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-';
    if (!plain) return false;
  }
  return true;
}

std::string unsafe_path_reason(const std::string& path) {
  if (path.empty()) return "an empty path";
  if (path.front() == '/') return "an absolute path";
  for (char c : path) {
    if (c == '\\') return "a backslash in the path";
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return "a control character in the path";
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t end = path.find('/', start);
    const std::string part = path.substr(start, end == std::string::npos ? end : end - start);
    if (part.empty()) return "an empty component in the path";
    if (part == "..") return "\"..\" in the path (it would reach outside the voice folder)";
    if (part == ".") return "\".\" in the path";
    if (end == std::string::npos) return "";
    start = end + 1;
  }
}

std::string manifest_json(const ArchiveManifest& manifest) {
  nlohmann::json files = nlohmann::json::array();
  for (const ArchivedFile& f : manifest.files)
    files.push_back({{"path", f.path}, {"bytes", f.bytes}, {"crc32", hex32(f.crc32)}});
  const nlohmann::json j = {{"format", kArchiveFormat},
                            {"format_version", kArchiveFormatVersion},
                            {"name", manifest.name},
                            {"voice_format_version", manifest.voice_format_version},
                            {"files", files}};
  return j.dump(2) + "\n";
}

ArchiveManifest parse_manifest(const std::string& text, const std::string& where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    refuse(where, std::string("not JSON: ") + e.what());
  }
  if (!j.is_object()) refuse(where, "not a JSON object");
  const nlohmann::json& format = field(j, "format", where);
  if (!format.is_string() || format.get<std::string>() != kArchiveFormat)
    refuse(where, std::string("\"format\" is not \"") + kArchiveFormat + "\"");
  version_field(j, "format_version", kArchiveFormatVersion, where);
  ArchiveManifest m;
  m.voice_format_version =
      version_field(j, "voice_format_version", engine::kVoiceFormatVersion, where);
  const nlohmann::json& name = field(j, "name", where);
  if (!name.is_string() || !is_valid_voice_name(name.get<std::string>()))
    refuse(where, "\"name\" " + name.dump() +
                      " is not a voice name (1 to 100 of A-Z a-z 0-9 . _ -, not starting with .)");
  m.name = name.get<std::string>();
  const nlohmann::json& files = field(j, "files", where);
  if (!files.is_array()) refuse(where, "\"files\" must be an array");
  if (files.size() > kMaxArchiveEntries)
    refuse(where, std::to_string(files.size()) + " files, more than the " +
                      std::to_string(kMaxArchiveEntries) + " an archive may hold");
  std::set<std::string> seen;
  std::uint64_t total = 0;
  for (const nlohmann::json& entry : files) {
    if (!entry.is_object()) refuse(where, "an entry of \"files\" is not an object");
    const nlohmann::json& path = field(entry, "path", where);
    const nlohmann::json& bytes = field(entry, "bytes", where);
    const nlohmann::json& crc = field(entry, "crc32", where);
    if (!path.is_string()) refuse(where, "a \"path\" of \"files\" is not a string");
    ArchivedFile f;
    f.path = path.get<std::string>();
    if (const std::string why = unsafe_path_reason(f.path); !why.empty())
      refuse(where, "file " + path.dump() + ": " + why);
    if (!seen.insert(f.path).second) refuse(where, "file " + path.dump() + " is listed twice");
    if (!bytes.is_number_unsigned()) refuse(where, "\"bytes\" of " + f.path + " is not a size");
    f.bytes = bytes.get<std::uint64_t>();
    const std::string crc_text = crc.is_string() ? crc.get<std::string>() : "";
    if (crc_text.size() != 8 ||
        crc_text.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      refuse(where, "\"crc32\" of " + f.path + " is not 8 hex digits");
    f.crc32 = static_cast<std::uint32_t>(std::stoul(crc_text, nullptr, 16));
    if (f.bytes > kMaxArchiveBytes - total)
      refuse(where, "the files add up to more than the " + std::to_string(kMaxArchiveBytes >> 30) +
                        " GiB an archive may unpack to");
    total += f.bytes;
    m.files.push_back(std::move(f));
  }
  if (!seen.count("voice.json")) refuse(where, "\"files\" does not list voice.json");
  return m;
}

}  // namespace tts::sharing
