// Float32 .npy writer and reader: exact bytes against the NPY 1.0 format (as numpy 1.24 writes
// it), round trips, Fortran order, version 2.0 headers and malformed files.
#include "tts/kernels/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>

#include "temp_folder.h"

namespace {

namespace fs = std::filesystem;
using tts::kernels::NpyError;
using tts::kernels::read_npy;
using tts::kernels::write_npy;

class Npy : public ::testing::Test {
 protected:
  std::string bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path write_bytes(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name, std::ios::binary) << content;
    return dir_ / name;
  }
  static std::string header_v1(const std::string& dict) {
    const std::size_t len = (10 + dict.size() + 1 + 63) / 64 * 64 - 10;
    std::string h("\x93NUMPY\x01\x00", 8);
    h += char(len & 0xFF);
    h += char(len >> 8);
    return h + dict + std::string(len - dict.size() - 1, ' ') + "\n";
  }
  tts::testing_support::TempFolder dir_;
};

TEST_F(Npy, HeaderBytesMatchNumpy) {
  // numpy.save(np.arange(6, dtype=np.float32).reshape(2, 3)) writes these 128 header bytes.
  const std::string want = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                           std::string(58, ' ') + "\n";
  EXPECT_EQ(tts::kernels::npy_header({2, 3}), want);
  EXPECT_NE(tts::kernels::npy_header({5}).find("'shape': (5,), }"), std::string::npos);
  EXPECT_NE(tts::kernels::npy_header({}).find("'shape': (), }"), std::string::npos);
  for (auto shape : {std::vector<std::size_t>{7}, {1, 2, 3, 4}, {123456789, 80}})
    EXPECT_EQ(tts::kernels::npy_header(shape).size() % 64, 0u);
}

TEST_F(Npy, FileIsHeaderThenLittleEndianFloats) {
  const float data[] = {0.0f, 1.0f, -2.0f, 0.5f, 3.0f, 1e-5f};
  write_npy(dir_ / "a.npy", data, {2, 3});
  const std::string file = bytes(dir_ / "a.npy");
  ASSERT_EQ(file.size(), 128u + 24u);
  EXPECT_EQ(file.substr(0, 128), tts::kernels::npy_header({2, 3}));
  // IEEE-754 binary32, little-endian: 1.0 = 3f800000, -2.0 = c0000000, 0.5 = 3f000000.
  EXPECT_EQ(file.substr(128 + 4, 4), std::string("\x00\x00\x80\x3f", 4));
  EXPECT_EQ(file.substr(128 + 8, 4), std::string("\x00\x00\x00\xc0", 4));
  EXPECT_EQ(file.substr(128 + 12, 4), std::string("\x00\x00\x00\x3f", 4));
  // Nothing but the file itself is left in the folder (the temporary was renamed).
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_.path()), fs::directory_iterator()), 1);
}

TEST_F(Npy, RoundTripsShapesAndValues) {
  for (auto shape :
       std::vector<std::vector<std::size_t>>{{}, {1}, {5}, {3, 80}, {2, 3, 4}, {0, 80}}) {
    std::size_t count =
        std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<std::size_t>());
    std::vector<float> data(count);
    for (std::size_t i = 0; i < count; ++i) data[i] = float(i) * 0.25f - 3.0f;
    write_npy(dir_ / "r.npy", data.data(), shape);  // also replaces the previous file
    const auto back = read_npy(dir_ / "r.npy");
    EXPECT_EQ(back.shape, shape);
    EXPECT_EQ(back.data, data);
  }
}

TEST_F(Npy, ReadsFortranOrderIntoCOrder) {
  // A (2, 3) array [[0, 1, 2], [3, 4, 5]] stored column by column.
  const float f2[] = {0, 3, 1, 4, 2, 5};
  auto p = write_bytes("f2.npy",
                       header_v1("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }") +
                           std::string(reinterpret_cast<const char*>(f2), sizeof f2));
  auto a = read_npy(p);
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(a.data, (std::vector<float>{0, 1, 2, 3, 4, 5}));

  // (2, 3, 4): element [i][j][k] = 100 i + 10 j + k lives at offset i + 2 j + 6 k.
  std::vector<float> f3(24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) f3[i + 2 * j + 6 * k] = float(100 * i + 10 * j + k);
  p = write_bytes("f3.npy",
                  header_v1("{'fortran_order': True, 'shape': (2, 3, 4), 'descr': '<f4'}") +
                      std::string(reinterpret_cast<const char*>(f3.data()), 96));
  a = read_npy(p);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(a.data[i * 12 + j * 4 + k], 100 * i + 10 * j + k);
}

TEST_F(Npy, LongHeaderUsesVersion2) {
  const std::vector<std::size_t> shape(25000, 1);  // "1, " x 25000 does not fit in 65535 bytes
  const std::string header = tts::kernels::npy_header(shape);
  EXPECT_EQ(header[6], '\x02');
  EXPECT_EQ(header.size() % 64, 0u);
  const float one = 42.0f;
  write_npy(dir_ / "v2.npy", &one, shape);
  const auto back = read_npy(dir_ / "v2.npy");
  EXPECT_EQ(back.shape, shape);
  EXPECT_EQ(back.data, std::vector<float>{42.0f});
}

TEST_F(Npy, RejectsBadFilesNamingThem) {
  auto expect_error = [&](const fs::path& p, const std::string& fragment) {
    try {
      read_npy(p);
      ADD_FAILURE() << "no error for " << p;
    } catch (const NpyError& e) {
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error(dir_ / "missing.npy", "cannot open");
  expect_error(write_bytes("magic.npy", "PK\x03\x04 not numpy"), "bad magic");
  expect_error(
      write_bytes("f8.npy", header_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }") +
                                std::string(8, '\0')),
      "'<f8'");
  expect_error(write_bytes("short.npy",
                           header_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }") +
                               std::string(12, '\0')),
               "truncated");
  expect_error(write_bytes("huge.npy", header_v1("{'descr': '<f4', 'fortran_order': False, "
                                                 "'shape': (99999999999999, 99999999999), }")),
               "too large");
  expect_error(write_bytes("garbled.npy", header_v1("{'descr': '<f4', 'shape': (1,x), }")),
               "malformed");
  expect_error(write_bytes("cut.npy", std::string("\x93NUMPY\x01\x00\x76\x00{'descr'", 17)),
               "truncated .npy header");
}

TEST_F(Npy, UnwritableTargetThrowsAndLeavesNothing) {
  const float x = 1.0f;
  EXPECT_THROW(write_npy(dir_ / "no_such_dir" / "x.npy", &x, {1}), NpyError);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_.path()), fs::directory_iterator()), 0);
}

}  // namespace
