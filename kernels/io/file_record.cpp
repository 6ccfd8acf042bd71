#include "tts/kernels/file_record.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <vector>

#include "tts/kernels/regular_file.h"

namespace fs = std::filesystem;

namespace tts::kernels {

namespace {

std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}

template <typename T>
T record_field(const nlohmann::json& entry, const char* key, const char* what) {
  if (!entry.contains(key)) throw std::invalid_argument(std::string("missing \"") + key + "\"");
  try {
    return entry.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(std::string("\"") + key + "\" must be " + what);
  }
}

}  // namespace

void Crc32::update(const void* data, std::size_t size) {
  static const auto table = make_crc_table();
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::uint32_t c = state_;
  for (std::size_t i = 0; i < size; ++i) c = table[(c ^ bytes[i]) & 0xFFu] ^ (c >> 8);
  state_ = c;
}

std::uint32_t file_crc32(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileRecordError(path.string() + ": cannot open");
  std::vector<char> buffer(1 << 20);
  Crc32 crc;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    crc.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw FileRecordError(path.string() + ": read error");
  return crc.value();
}

std::string crc32_hex(std::uint32_t crc) {
  char text[16];
  std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(crc));
  return text;
}

FileRecord record_file(const fs::path& folder, const std::string& relative) {
  const fs::path path = folder / relative;
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  if (ec) throw FileRecordError(path.string() + ": cannot read its size: " + ec.message());
  return {relative, bytes, file_crc32(path)};
}

nlohmann::json file_record_json(const FileRecord& record) {
  return {{"path", record.path}, {"bytes", record.bytes}, {"crc32", crc32_hex(record.crc32)}};
}

FileRecord parse_file_record(const nlohmann::json& entry) {
  FileRecord record;
  record.path = record_field<std::string>(entry, "path", "a string");
  // 12.5 or -1 would otherwise be read as 12 or 2^64 - 1.
  if (entry.is_object() && entry.contains("bytes") && !entry.at("bytes").is_number_unsigned())
    throw std::invalid_argument("\"bytes\" of " + record.path + " must be a non-negative integer");
  record.bytes = record_field<std::uint64_t>(entry, "bytes", "a non-negative integer");
  const auto crc = record_field<std::string>(entry, "crc32", "8 hex digits");
  if (crc.size() != 8 || crc.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    throw std::invalid_argument("\"crc32\" of " + record.path + " must be 8 hex digits");
  record.crc32 = static_cast<std::uint32_t>(std::stoul(crc, nullptr, 16));
  return record;
}

void verify_file(const fs::path& folder, const FileRecord& record, const std::string& manifest) {
  const fs::path path = folder / record.path;
  // Checked without opening it: a FIFO in its place would block the read for ever.
  try {
    require_regular_file(path);
  } catch (const RegularFileError& e) {
    if (e.missing())
      throw FileRecordError(path.string() + ": missing (listed in " + manifest + ")");
    throw FileRecordError(std::string(e.what()) + " (listed in " + manifest + ")");
  }
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) throw FileRecordError(path.string() + ": cannot read its size: " + ec.message());
  if (size != record.bytes)
    throw FileRecordError(path.string() + ": " + std::to_string(size) + " bytes, " + manifest +
                          " says " + std::to_string(record.bytes) +
                          (size < record.bytes ? " (truncated)" : " (corrupted)"));
  const std::uint32_t crc = file_crc32(path);
  if (crc != record.crc32)
    throw FileRecordError(path.string() + ": checksum mismatch (CRC-32 " + crc32_hex(crc) + ", " +
                          manifest + " says " + crc32_hex(record.crc32) +
                          "): the file is corrupted");
}

}  // namespace tts::kernels
