// The size and CRC-32 of a file as a folder's manifest records it ("files" of voice.json and of a
// training checkpoint's checkpoint.json): {"path": …, "bytes": …, "crc32": "8 hex digits"}, and
// the check that the file still has them, so that a truncated or corrupted file is refused with
// a message naming it instead of being read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace tts::kernels {

// A file that cannot be read, or that no longer matches its record. The message names the file.
class FileRecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FileRecord {
  std::string path;  // relative to the manifest's folder, '/'-separated
  std::uint64_t bytes = 0;
  std::uint32_t crc32 = 0;  // CRC-32 (IEEE 802.3, as zlib.crc32) of the whole file
};

// CRC-32 (IEEE 802.3, as zlib.crc32) over data arriving in pieces: a file read in blocks, or
// copied (an archive entry written while it is checked) without a second read.
class Crc32 {
 public:
  void update(const void* data, std::size_t size);
  std::uint32_t value() const { return ~state_; }

 private:
  std::uint32_t state_ = 0xFFFFFFFFu;
};

// CRC-32 (IEEE 802.3) of a file's bytes; throws FileRecordError when it cannot be read.
std::uint32_t file_crc32(const std::filesystem::path& path);

// "cbf43926": a CRC-32 as the manifests write it.
std::string crc32_hex(std::uint32_t crc);

// The record of FOLDER/`relative` as it is now.
FileRecord record_file(const std::filesystem::path& folder, const std::string& relative);

// {"path", "bytes", "crc32"}: one entry of a manifest's "files".
nlohmann::json file_record_json(const FileRecord& record);

// One entry of "files"; throws std::invalid_argument naming the key that is missing or of the
// wrong type ("\"bytes\" must be a non-negative integer", "\"crc32\" of P must be 8 hex digits").
FileRecord parse_file_record(const nlohmann::json& entry);

// Checks FOLDER/record.path against its record; throws FileRecordError naming the file and
// `manifest` (the file that holds the record, e.g. "voice.json") when it is missing, of another
// size ("… (truncated)" when shorter) or of another CRC-32 ("checksum mismatch … the file is
// corrupted").
void verify_file(const std::filesystem::path& folder, const FileRecord& record,
                 const std::string& manifest);

}  // namespace tts::kernels
