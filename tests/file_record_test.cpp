// The size-and-CRC-32 record that voice.json and checkpoint.json keep of their files: the checksum
// is zlib's, a record round-trips through JSON, and a file that no longer matches its record is
// refused with a message naming it and saying how it differs.
#include "tts/kernels/file_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "temp_folder.h"

namespace fs = std::filesystem;
using testing::HasSubstr;
using namespace tts::kernels;

namespace {

std::string verify_error(const fs::path& folder, const FileRecord& record) {
  try {
    verify_file(folder, record, "manifest.json");
  } catch (const FileRecordError& e) {
    return e.what();
  }
  return "";
}

TEST(FileRecord, ChecksumIsZlibCrc32) {
  const tts::testing_support::TempFolder folder;
  std::ofstream(folder / "check.txt") << "123456789";
  EXPECT_EQ(file_crc32(folder / "check.txt"), 0xCBF43926u);  // the standard CRC-32 check value
  EXPECT_EQ(crc32_hex(0xCBF43926u), "cbf43926");
  EXPECT_EQ(crc32_hex(0x0000abcdu), "0000abcd");
}

TEST(FileRecord, RecordRoundTripsThroughJsonAndVerifies) {
  const tts::testing_support::TempFolder folder;
  fs::create_directories(folder / "sub");
  std::ofstream(folder / "sub" / "a.bin") << "123456789";
  const FileRecord record = record_file(folder.path(), "sub/a.bin");
  EXPECT_EQ(record.bytes, 9u);
  const nlohmann::json j = file_record_json(record);
  EXPECT_EQ(j, nlohmann::json::parse(R"({"path": "sub/a.bin", "bytes": 9, "crc32": "cbf43926"})"));
  const FileRecord back = parse_file_record(j);
  EXPECT_EQ(back.path, record.path);
  EXPECT_EQ(back.bytes, record.bytes);
  EXPECT_EQ(back.crc32, record.crc32);
  EXPECT_EQ(verify_error(folder.path(), back), "");
}

TEST(FileRecord, MalformedEntriesNameTheField) {
  auto error = [](const char* text) {
    try {
      parse_file_record(nlohmann::json::parse(text));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_THAT(error(R"({"bytes": 1, "crc32": "00000000"})"), HasSubstr("missing \"path\""));
  // 12.5 and -1 would otherwise be read as 12 and 2^64 - 1.
  for (const char* bytes : {"\"9\"", "12.5", "-1"})
    EXPECT_THAT(
        error((std::string(R"({"path": "a", "bytes": )") + bytes + R"(, "crc32": "00000000"})")
                  .c_str()),
        HasSubstr("\"bytes\" of a must be a non-negative integer"))
        << bytes;
  EXPECT_THAT(error(R"({"path": "a", "bytes": 1, "crc32": "0000"})"),
              HasSubstr("\"crc32\" of a must be 8 hex digits"));
  EXPECT_THAT(error(R"({"path": "a", "bytes": 1, "crc32": "0000000g"})"),
              HasSubstr("8 hex digits"));
}

TEST(FileRecord, DamagedFilesAreNamedWithHowTheyDiffer) {
  const tts::testing_support::TempFolder folder;
  std::ofstream(folder / "a.bin") << "123456789";
  const FileRecord record = record_file(folder.path(), "a.bin");
  const std::string name = (folder / "a.bin").string();

  std::ofstream(folder / "a.bin") << "12345678";
  std::string e = verify_error(folder.path(), record);
  EXPECT_THAT(e, HasSubstr(name + ": 8 bytes, manifest.json says 9 (truncated)"));

  std::ofstream(folder / "a.bin") << "1234567890";
  EXPECT_THAT(verify_error(folder.path(), record), HasSubstr("(corrupted)"));

  std::ofstream(folder / "a.bin") << "123456780";  // same size, one byte changed
  e = verify_error(folder.path(), record);
  EXPECT_THAT(e, HasSubstr(name + ": checksum mismatch (CRC-32 "));
  EXPECT_THAT(e, HasSubstr("manifest.json says cbf43926): the file is corrupted"));

  fs::remove(folder / "a.bin");
  EXPECT_THAT(verify_error(folder.path(), record),
              HasSubstr(name + ": missing (listed in manifest.json)"));
  EXPECT_THROW(file_crc32(folder / "a.bin"), FileRecordError);

  // A FIFO in its place is named, not called missing, and never opened (the read would block).
  ASSERT_EQ(::mkfifo((folder / "a.bin").c_str(), 0600), 0);
  e = verify_error(folder.path(), record);
  EXPECT_THAT(e, HasSubstr(name + ": is a FIFO, not a regular file (listed in manifest.json)"));
}

}  // namespace
