#include "tts/kernels/safetensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "temp_folder.h"

namespace fs = std::filesystem;
using testing::HasSubstr;
using tts::kernels::SafetensorsError;
using tts::kernels::SafetensorsFile;
using tts::kernels::SafetensorsWriter;

namespace {

std::vector<std::byte> to_bytes(const std::string& s) {
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}

// A file assembled by hand per the spec: 8-byte little-endian length, header as given, data.
std::vector<std::byte> raw_file(const std::string& header, const std::string& data) {
  std::string prefix(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return to_bytes(prefix + header + data);
}

std::string error_of(const std::vector<std::byte>& bytes) {
  try {
    SafetensorsFile::from_bytes(bytes, "corrupt.safetensors");
  } catch (const SafetensorsError& e) {
    return e.what();
  }
  return "(no error)";
}

// Eight bytes of zeros, the data of one F32 [2] tensor.
const std::string kEight(8, '\0');

class SafetensorsTest : public testing::Test {
 protected:
  tts::testing_support::TempFolder dir_;
};

SafetensorsWriter sample_writer() {
  SafetensorsWriter w;
  const float matrix[6] = {1.5f, -2.0f, 0.0f, 3.25f, -0.0f, 1e-30f};
  w.add_f32("layer.0.weight", {2, 3}, matrix);
  const uint16_t half[4] = {0x3c00, 0xc000, 0x0000, 0x7c00};
  w.add("half", "F16", {4}, half, sizeof(half));
  const uint16_t bf[2] = {0x3f80, 0xbf80};
  w.add("bf", "BF16", {1, 2}, bf, sizeof(bf));
  const int32_t ints[3] = {-1, 0, 2147483647};
  w.add("ints", "I32", {3}, ints, sizeof(ints));
  const int64_t scalar = -1234567890123LL;
  w.add("step", "I64", {}, &scalar, sizeof(scalar));
  w.add_f32("empty", {0, 3}, nullptr);
  const uint8_t bytes[5] = {0, 1, 127, 128, 255};
  w.add("bytes", "U8", {5}, bytes, sizeof(bytes));
  w.set_metadata("format", "pt");
  w.set_metadata("voice", "ünïcode");
  return w;
}

}  // namespace

TEST_F(SafetensorsTest, RoundTripKeepsEveryByte) {
  SafetensorsWriter w = sample_writer();
  const fs::path path = dir_ / "model.safetensors";
  w.write(path);
  SafetensorsFile f = SafetensorsFile::load(path);

  EXPECT_EQ(f.names(), (std::vector<std::string>{"layer.0.weight", "half", "bf", "ints", "step",
                                                 "empty", "bytes"}));
  EXPECT_EQ(f.metadata().at("format"), "pt");
  EXPECT_EQ(f.metadata().at("voice"), "ünïcode");

  EXPECT_EQ(f.f32("layer.0.weight", {2, 3}),
            (std::vector<float>{1.5f, -2.0f, 0.0f, 3.25f, -0.0f, 1e-30f}));
  const auto& half = f.tensor("half");
  EXPECT_EQ(half.dtype, "F16");
  EXPECT_EQ(half.shape, (std::vector<int64_t>{4}));
  const uint16_t half_expected[4] = {0x3c00, 0xc000, 0x0000, 0x7c00};
  ASSERT_EQ(half.nbytes, sizeof(half_expected));
  EXPECT_EQ(std::memcmp(half.data, half_expected, sizeof(half_expected)), 0);
  EXPECT_EQ(f.tensor("bf").shape, (std::vector<int64_t>{1, 2}));
  const auto& step = f.tensor("step");
  EXPECT_TRUE(step.shape.empty());
  ASSERT_EQ(step.nbytes, 8u);
  int64_t scalar = 0;
  std::memcpy(&scalar, step.data, 8);
  EXPECT_EQ(scalar, -1234567890123LL);
  EXPECT_EQ(f.tensor("empty").nbytes, 0u);
  EXPECT_EQ(f.f32("empty", {0, 3}).size(), 0u);
  const auto& bytes = f.tensor("bytes");
  ASSERT_EQ(bytes.nbytes, 5u);
  EXPECT_EQ(static_cast<uint8_t>(bytes.data[4]), 255);

  // The file on disk is exactly to_bytes(), and its header is padded to 8 bytes.
  std::ifstream in(path, std::ios::binary);
  std::string disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto expected = w.to_bytes();
  ASSERT_EQ(disk.size(), expected.size());
  EXPECT_EQ(std::memcmp(disk.data(), expected.data(), disk.size()), 0);
  uint64_t n = 0;
  std::memcpy(&n, disk.data(), 8);
  EXPECT_EQ(n % 8, 0u);

  // Reading then writing again reproduces the same bytes.
  SafetensorsWriter again;
  for (const auto& name : f.names()) {
    const auto& t = f.tensor(name);
    again.add(name, t.dtype, t.shape, t.data, t.nbytes);
  }
  for (const auto& [k, v] : f.metadata()) again.set_metadata(k, v);
  EXPECT_EQ(again.to_bytes(), expected);
}

TEST_F(SafetensorsTest, WriterProducesGoldenBytes) {
  SafetensorsWriter w;
  const float values[2] = {1.0f, -2.0f};
  w.add_f32("a", {2}, values);
  w.set_metadata("format", "pt");
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})"
      "   ";  // 85 bytes of JSON + 3 spaces = 88
  const std::string golden = std::string("\x58\0\0\0\0\0\0\0", 8) + header +
                             std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8);
  EXPECT_EQ(w.to_bytes(), to_bytes(golden));
}

TEST_F(SafetensorsTest, ReadsHandWrittenFileFromAnotherWriter) {
  // Unpadded header, keys in a different order from the data, whitespace, a 0-d tensor.
  const std::string header = R"({"b": {"dtype": "I32", "shape": [], "data_offsets": [8, 12]},)"
                             R"( "a": {"shape": [2], "dtype": "F32", "data_offsets": [0, 8]},)"
                             R"( "__metadata__": {"format": "pt"}})";
  const std::string data("\x00\x00\x80\x3f\x00\x00\x00\xc0\x07\x00\x00\x00", 12);
  const fs::path path = dir_ / "other.safetensors";
  {
    auto bytes = raw_file(header, data);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  SafetensorsFile f = SafetensorsFile::load(path);
  EXPECT_EQ(f.names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(f.f32("a", {2}), (std::vector<float>{1.0f, -2.0f}));
  int32_t b = 0;
  std::memcpy(&b, f.tensor("b").data, 4);
  EXPECT_EQ(b, 7);
  EXPECT_EQ(f.metadata().at("format"), "pt");
  EXPECT_TRUE(f.contains("a"));
  EXPECT_FALSE(f.contains("c"));
}

TEST_F(SafetensorsTest, EmptyFileHasNoTensors) {
  SafetensorsWriter w;
  auto f = SafetensorsFile::from_bytes(w.to_bytes(), "empty");
  EXPECT_TRUE(f.names().empty());
  EXPECT_TRUE(f.metadata().empty());
}

TEST_F(SafetensorsTest, MissingTensorAndWrongShapeNameEverything) {
  const fs::path path = dir_ / "model.safetensors";
  sample_writer().write(path);
  SafetensorsFile f = SafetensorsFile::load(path);
  try {
    f.tensor("nope");
    FAIL();
  } catch (const SafetensorsError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'nope'"));
    EXPECT_THAT(e.what(), HasSubstr(path.string()));
  }
  try {
    f.f32("layer.0.weight", {3, 2});
    FAIL();
  } catch (const SafetensorsError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path.string()));
    EXPECT_THAT(e.what(), HasSubstr("'layer.0.weight'"));
    EXPECT_THAT(e.what(), HasSubstr("expected F32 [3, 2], found F32 [2, 3]"));
  }
  try {
    f.f32("half", {4});
    FAIL();
  } catch (const SafetensorsError& e) {
    EXPECT_THAT(e.what(), HasSubstr("expected F32 [4], found F16 [4]"));
  }
  try {
    SafetensorsFile::load(dir_ / "absent.safetensors");
    FAIL();
  } catch (const SafetensorsError& e) {
    EXPECT_THAT(e.what(), HasSubstr("absent.safetensors"));
  }
}

TEST_F(SafetensorsTest, WriterRejectsBadTensors) {
  SafetensorsWriter w;
  const float x[4] = {};
  w.add_f32("x", {4}, x);
  auto error = [&](auto&& call) -> std::string {
    try {
      call();
    } catch (const SafetensorsError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_THAT(error([&] { w.add_f32("x", {4}, x); }), HasSubstr("duplicate"));
  EXPECT_THAT(error([&] { w.add_f32("", {4}, x); }), HasSubstr("empty name"));
  EXPECT_THAT(error([&] { w.add_f32("__metadata__", {4}, x); }), HasSubstr("reserved"));
  EXPECT_THAT(error([&] { w.add("y", "F33", {4}, x, 16); }), HasSubstr("unknown"));
  EXPECT_THAT(error([&] { w.add("y", "F32", {4}, x, 12); }), HasSubstr("needs 16 bytes, got 12"));
  EXPECT_THAT(error([&] { w.add("y", "F32", {-1}, x, 4); }), HasSubstr("negative"));
  EXPECT_THAT(error([&] { w.add("y", "F32", {4}, nullptr, 16); }), HasSubstr("null"));
  EXPECT_THAT(error([&] { w.add_f32("\xff", {4}, x); }), HasSubstr("UTF-8"));
}

TEST_F(SafetensorsTest, EveryCorruptionIsNamed) {
  const std::string ok = R"("dtype":"F32","shape":[2],"data_offsets":[0,8])";
  struct Case {
    std::vector<std::byte> bytes;
    std::string expected;
  };
  std::string absurd(8, '\0');
  absurd[4] = 1;  // 2^32
  const std::vector<Case> cases = {
      {to_bytes("\x10\0\0"), "shorter than the 8-byte header length (truncated)"},
      {to_bytes(absurd + "{}"), "absurd"},
      {raw_file("", ""), "does not start with '{'"},
      {to_bytes(std::string("\x40\0\0\0\0\0\0\0{}", 10)),
       "larger than the 2 bytes after it (truncated)"},
      {raw_file(R"({"a":{)" + ok + "}", kEight), "not valid JSON"},
      {raw_file("[1, 2]", ""), "does not start with '{'"},
      {raw_file("{\"\xff\":1}", ""), "not valid JSON"},
      {raw_file(R"({"a":5})", ""), "tensor 'a': entry is not an object"},
      {raw_file(R"({"a":{"shape":[2],"data_offsets":[0,8]}})", kEight),
       "tensor 'a': missing dtype"},
      {raw_file(R"({"a":{"dtype":"F32","data_offsets":[0,8]}})", kEight), "missing shape"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[2]}})", kEight), "missing data_offsets"},
      {raw_file(R"({"a":{"dtype":32,"shape":[2],"data_offsets":[0,8]}})", kEight),
       "dtype is not a string"},
      {raw_file(R"({"a":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})", kEight),
       "shape is not an array"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", kEight),
       "non-integer"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", kEight),
       "data_offsets is not [begin, end]"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}})", kEight),
       "non-negative"},
      {raw_file(R"({"a":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", kEight),
       "unknown dtype 'F33'"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", kEight),
       "negative dimension -2"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[9223372036854775808],"data_offsets":[0,8]}})",
                kEight),
       "too large"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})",
                kEight),
       "too large"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", kEight),
       "do not match F32 [3] (12 bytes)"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", kEight),
       "do not match"},
      {raw_file("{\"a\":{" + ok + "}}", "1234"), "buffer holds only 4 (truncated)"},
      {raw_file(R"({"a":{)" + ok + R"(},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                kEight),
       "overlaps"},
      {raw_file(R"({"a":{)" + ok + R"(},"b":{"dtype":"U8","shape":[0],"data_offsets":[4,4]}})",
                kEight),
       "overlaps"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", kEight),
       "gap of 4 bytes before tensor 'a'"},
      {raw_file("{\"a\":{" + ok + "}}", kEight + "xy"), "2 trailing bytes"},
      {raw_file("{}", "x"), "1 trailing bytes"},
      {raw_file(R"({"a":{)" + ok + R"(},"a":{)" + ok + "}}", kEight), "duplicate key 'a'"},
      {raw_file(R"({"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}})", kEight),
       "duplicate key 'dtype'"},
      {raw_file(R"({"__metadata__":{"k":1}})", ""), "__metadata__ value for 'k' is not a string"},
      {raw_file(R"({"__metadata__":[]})", ""), "__metadata__ is not an object"},
  };
  for (const auto& c : cases) {
    const std::string msg = error_of(c.bytes);
    EXPECT_THAT(msg, HasSubstr(c.expected));
    EXPECT_THAT(msg, HasSubstr("corrupt.safetensors"));
  }
}

TEST_F(SafetensorsTest, EveryTruncationThrows) {
  const auto full = sample_writer().to_bytes();
  ASSERT_NO_THROW(SafetensorsFile::from_bytes(full, "full"));
  for (size_t len = 0; len < full.size(); ++len) {
    std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len));
    EXPECT_THROW(SafetensorsFile::from_bytes(std::move(cut), "cut"), SafetensorsError) << len;
  }
  // And through the file path, at a few offsets.
  for (size_t len : {size_t{0}, size_t{7}, size_t{8}, full.size() / 2, full.size() - 1}) {
    const fs::path path = dir_ / "cut.safetensors";
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(full.data()), static_cast<std::streamsize>(len));
    EXPECT_THROW(SafetensorsFile::load(path), SafetensorsError) << len;
  }
}

TEST_F(SafetensorsTest, FlippedBytesNeverCrash) {
  const auto full = sample_writer().to_bytes();
  for (size_t i = 0; i < full.size(); ++i) {
    for (uint8_t v : {0x00, 0x20, 0x22, 0x7b, 0x7d, 0xff}) {
      auto bytes = full;
      bytes[i] = std::byte{v};
      try {
        auto f = SafetensorsFile::from_bytes(std::move(bytes), "flipped");
        for (const auto& name : f.names()) (void)f.tensor(name).nbytes;
      } catch (const SafetensorsError&) {
      }
    }
  }
}
