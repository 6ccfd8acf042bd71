// Reading and writing the safetensors format (https://huggingface.co/docs/safetensors):
//
//   [8 bytes: N, unsigned little-endian] [N bytes: UTF-8 JSON header] [byte buffer]
//   header = {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
//             "__metadata__": {"key": "value", ...}}        ("__metadata__" is optional)
//
// Offsets are relative to the start of the byte buffer; tensors tile the buffer exactly (no gaps,
// no overlaps, nothing after the last one). Data is stored row-major, little-endian.
// This code assumes a little-endian host (checked at compile time) and copies tensor bytes as-is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tts::kernels {

// Any malformed file, unknown tensor, or wrong dtype/shape. The message names the file (or the
// source name given to from_bytes) and the problem.
class SafetensorsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bytes per element of a safetensors dtype ("F32" -> 4). Known: BOOL U8 I8 F8_E5M2 F8_E4M3 I16
// U16 F16 BF16 I32 U32 F32 F64 I64 U64. Throws SafetensorsError for anything else.
size_t safetensors_dtype_size(std::string_view dtype);

// One tensor inside a loaded file. `data` points into the file's buffer (valid while the
// SafetensorsFile lives; it is 8-byte aligned only when the writer padded the header, as ours
// does, so copy with memcpy rather than casting). A 0-d tensor has an empty shape and 1 element.
struct TensorView {
  std::string dtype;
  std::vector<int64_t> shape;
  const std::byte* data = nullptr;
  size_t nbytes = 0;
};

class SafetensorsWriter {
 public:
  // Copies `nbytes` bytes from `data`. Throws SafetensorsError for an empty, reserved
  // ("__metadata__") or repeated name, an unknown dtype, a negative dim, or nbytes that does not
  // equal product(shape) * dtype size. Tensors are laid out in the order they are added.
  void add(std::string name, std::string dtype, std::vector<int64_t> shape, const void* data,
           size_t nbytes);
  // `data` holds product(shape) floats.
  void add_f32(std::string name, std::vector<int64_t> shape, const float* data);
  // Later calls with the same key replace the value.
  void set_metadata(std::string key, std::string value);

  // The complete file: compact JSON header (metadata first, then tensors in insertion order),
  // padded with spaces to a multiple of 8 bytes, then the data.
  std::vector<std::byte> to_bytes() const;
  // Writes the file through write_file_atomically; throws std::runtime_error on I/O failure.
  void write(const std::filesystem::path& path) const;

 private:
  struct Entry {
    std::string name, dtype;
    std::vector<int64_t> shape;
    std::vector<std::byte> bytes;
  };
  std::string header() const;
  std::vector<Entry> entries_;
  std::map<std::string, std::string> metadata_;
};

class SafetensorsFile {
 public:
  // Reads the whole file into memory and validates it: length prefix, header size (at most
  // 100 MB and within the file), JSON syntax and UTF-8, duplicate keys, every entry's dtype /
  // shape / data_offsets, sizes matching shape, offsets inside the buffer, no overlaps, gaps or
  // trailing bytes, and __metadata__ being string -> string. Throws SafetensorsError.
  static SafetensorsFile load(const std::filesystem::path& path);
  // Same, for a file already in memory; `source` names it in error messages.
  static SafetensorsFile from_bytes(std::vector<std::byte> bytes, std::string source);

  // Move-only: the views point into the owned buffer.
  SafetensorsFile(SafetensorsFile&&) = default;
  SafetensorsFile& operator=(SafetensorsFile&&) = default;
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  bool contains(const std::string& name) const;
  // Throws SafetensorsError naming the missing tensor and the file.
  const TensorView& tensor(const std::string& name) const;
  // Tensor names in buffer order.
  std::vector<std::string> names() const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // Copies an F32 tensor out; throws SafetensorsError naming the file, tensor, and expected vs
  // actual dtype/shape when the dtype is not F32 or the shape differs from `expected_shape`.
  std::vector<float> f32(const std::string& name, const std::vector<int64_t>& expected_shape) const;
  const std::string& source() const { return source_; }

 private:
  SafetensorsFile() = default;
  std::string source_;
  std::vector<std::byte> bytes_;
  std::map<std::string, TensorView> tensors_;
  std::vector<std::string> order_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace tts::kernels
