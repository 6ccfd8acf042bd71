#include "tts/kernels/safetensors.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "tts/kernels/atomic_file.h"

// Tensor bytes and the length prefix are copied verbatim, which is only right on little-endian
// hosts (every platform we build for). std::endian is C++20; this project is C++17.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors I/O assumes little-endian");

namespace tts::kernels {
namespace {

using json = nlohmann::json;
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// product(shape) * element size into *out; false for a negative dim or on overflow.
bool byte_size(const std::vector<int64_t>& shape, size_t element_size, uint64_t* out) {
  uint64_t n = element_size;
  for (int64_t d : shape) {
    if (d < 0) return false;
    if (d != 0 && n > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d)) return false;
    n *= static_cast<uint64_t>(d);
  }
  *out = n;
  return true;
}

// Parses the header, rejecting repeated keys at any level (nlohmann would silently keep one).
json parse_header(const std::string& text, std::string* duplicate) {
  std::vector<std::set<std::string>> keys;
  json::parser_callback_t callback = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == json::parse_event_t::key && !keys.empty()) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!keys.back().insert(key).second && duplicate->empty()) *duplicate = key;
    }
    return true;
  };
  return json::parse(text, callback);
}

struct Entry {
  std::string name;
  uint64_t begin, end;
};

}  // namespace

size_t safetensors_dtype_size(std::string_view dtype) {
  static const std::map<std::string_view, size_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
      {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
      {"U32", 4},  {"F32", 4}, {"F64", 8}, {"I64", 8},     {"U64", 8}};
  auto it = sizes.find(dtype);
  if (it == sizes.end())
    throw SafetensorsError("unknown safetensors dtype '" + std::string(dtype) + "'");
  return it->second;
}

// ---------------------------------------------------------------------------------------------
// Writer

void SafetensorsWriter::add(std::string name, std::string dtype, std::vector<int64_t> shape,
                            const void* data, size_t nbytes) {
  auto fail = [&](const std::string& why) {
    return SafetensorsError("safetensors: cannot add tensor '" + name + "': " + why);
  };
  if (name.empty()) throw fail("empty name");
  if (name == kMetadataKey) throw fail("the name is reserved for metadata");
  for (const auto& e : entries_) {
    if (e.name == name) throw fail("duplicate name");
  }
  try {
    (void)json(name).dump();
  } catch (const json::exception&) {
    throw fail("name is not valid UTF-8");
  }
  size_t element_size;
  try {
    element_size = safetensors_dtype_size(dtype);
  } catch (const SafetensorsError& e) {
    throw fail(e.what());
  }
  uint64_t expected = 0;
  if (!byte_size(shape, element_size, &expected)) {
    throw fail("invalid shape " + shape_text(shape) + " (negative or overflowing)");
  }
  if (expected != nbytes) {
    throw fail(dtype + " " + shape_text(shape) + " needs " + std::to_string(expected) +
               " bytes, got " + std::to_string(nbytes));
  }
  if (nbytes > 0 && data == nullptr) throw fail("null data");
  Entry entry{std::move(name), std::move(dtype), std::move(shape), std::vector<std::byte>(nbytes)};
  if (nbytes > 0) std::memcpy(entry.bytes.data(), data, nbytes);
  entries_.push_back(std::move(entry));
}

void SafetensorsWriter::add_f32(std::string name, std::vector<int64_t> shape, const float* data) {
  uint64_t nbytes = 0;
  if (!byte_size(shape, sizeof(float), &nbytes)) {
    throw SafetensorsError("safetensors: cannot add tensor '" + name + "': invalid shape " +
                           shape_text(shape) + " (negative or overflowing)");
  }
  add(std::move(name), "F32", std::move(shape), data, static_cast<size_t>(nbytes));
}

void SafetensorsWriter::set_metadata(std::string key, std::string value) {
  try {
    (void)json(key).dump();
    (void)json(value).dump();
  } catch (const json::exception&) {
    throw SafetensorsError("safetensors: metadata '" + key + "' is not valid UTF-8");
  }
  metadata_[std::move(key)] = std::move(value);
}

std::string SafetensorsWriter::header() const {
  nlohmann::ordered_json h = nlohmann::ordered_json::object();
  if (!metadata_.empty()) h[kMetadataKey] = metadata_;
  uint64_t offset = 0;
  for (const auto& e : entries_) {
    nlohmann::ordered_json info = nlohmann::ordered_json::object();
    info["dtype"] = e.dtype;
    info["shape"] = e.shape;
    info["data_offsets"] = {offset, offset + e.bytes.size()};
    h[e.name] = std::move(info);
    offset += e.bytes.size();
  }
  std::string text = h.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

std::vector<std::byte> SafetensorsWriter::to_bytes() const {
  const std::string h = header();
  size_t total = 8 + h.size();
  for (const auto& e : entries_) total += e.bytes.size();
  std::vector<std::byte> out(8);
  out.reserve(total);
  const uint64_t n = h.size();
  std::memcpy(out.data(), &n, 8);
  for (char c : h) out.push_back(static_cast<std::byte>(c));
  for (const auto& e : entries_) out.insert(out.end(), e.bytes.begin(), e.bytes.end());
  return out;
}

void SafetensorsWriter::write(const std::filesystem::path& path) const {
  const std::string h = header();
  write_file_atomically(path, [&](std::ostream& out) {
    const uint64_t n = h.size();
    char prefix[8];
    std::memcpy(prefix, &n, 8);
    out.write(prefix, 8);
    out.write(h.data(), static_cast<std::streamsize>(h.size()));
    for (const auto& e : entries_) {
      out.write(reinterpret_cast<const char*>(e.bytes.data()),
                static_cast<std::streamsize>(e.bytes.size()));
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Reader

SafetensorsFile SafetensorsFile::load(const std::filesystem::path& path) {
  auto fail = [&](const std::string& why) {
    return SafetensorsError("safetensors file '" + path.string() + "': " + why);
  };
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw fail(ec ? "cannot open: " + ec.message() : "does not exist or is not a regular file");
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw fail("cannot read size: " + ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) throw fail(std::string("cannot open: ") + std::strerror(errno));
  std::vector<std::byte> bytes(size);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
  if (static_cast<uintmax_t>(in.gcount()) != size) throw fail("read error (file changed?)");
  return from_bytes(std::move(bytes), path.string());
}

SafetensorsFile SafetensorsFile::from_bytes(std::vector<std::byte> bytes, std::string source) {
  auto fail = [&](const std::string& why) {
    return SafetensorsError("safetensors file '" + source + "': " + why);
  };
  if (bytes.size() < 8) {
    throw fail("file is " + std::to_string(bytes.size()) +
               " bytes, shorter than the 8-byte header length (truncated)");
  }
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  if (n > kMaxHeaderBytes) {
    throw fail("header length " + std::to_string(n) + " is absurd (over 100 MB)");
  }
  if (n > bytes.size() - 8) {
    throw fail("header length " + std::to_string(n) + " is larger than the " +
               std::to_string(bytes.size() - 8) + " bytes after it (truncated)");
  }
  const std::string text(reinterpret_cast<const char*>(bytes.data()) + 8, n);
  if (text.empty() || text[0] != '{') throw fail("header does not start with '{'");

  json header;
  std::string duplicate;
  try {
    header = parse_header(text, &duplicate);
  } catch (const json::exception& e) {
    throw fail(std::string("header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) throw fail("header is not a JSON object");
  if (!duplicate.empty()) throw fail("duplicate key '" + duplicate + "' in header");

  SafetensorsFile file;
  file.source_ = source;
  const uint64_t buffer_size = bytes.size() - 8 - n;
  std::vector<Entry> entries;
  // Named references, not a structured binding: C++17 lambdas (`bad` below) cannot capture one.
  for (const auto& item : header.items()) {
    const std::string& name = item.key();
    const nlohmann::json& info = item.value();
    if (name == kMetadataKey) {
      if (!info.is_object()) throw fail("__metadata__ is not an object");
      for (const auto& [key, value] : info.items()) {
        if (!value.is_string()) throw fail("__metadata__ value for '" + key + "' is not a string");
        file.metadata_[key] = value.get<std::string>();
      }
      continue;
    }
    auto bad = [&](const std::string& why) { return fail("tensor '" + name + "': " + why); };
    if (!info.is_object()) throw bad("entry is not an object");
    for (const char* field : {"dtype", "shape", "data_offsets"}) {
      if (!info.contains(field)) throw bad(std::string("missing ") + field);
    }
    const json& dtype = info["dtype"];
    const json& shape = info["shape"];
    const json& offsets = info["data_offsets"];
    if (!dtype.is_string()) throw bad("dtype is not a string");
    if (!shape.is_array()) throw bad("shape is not an array");
    if (!offsets.is_array() || offsets.size() != 2) throw bad("data_offsets is not [begin, end]");

    TensorView view;
    view.dtype = dtype.get<std::string>();
    size_t element_size;
    try {
      element_size = safetensors_dtype_size(view.dtype);
    } catch (const SafetensorsError&) {
      throw bad("unknown dtype '" + view.dtype + "'");
    }
    for (const json& d : shape) {
      if (!d.is_number_integer()) throw bad("shape holds a non-integer " + d.dump());
      if (d.is_number_unsigned() && d.get<uint64_t>() > uint64_t(INT64_MAX)) {
        throw bad("dimension " + d.dump() + " is too large");
      }
      if (d.get<int64_t>() < 0) throw bad("negative dimension " + d.dump());
      view.shape.push_back(d.get<int64_t>());
    }
    for (const json& o : offsets) {
      if (!o.is_number_unsigned()) throw bad("data_offsets must be non-negative integers");
    }
    const uint64_t begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
    uint64_t expected = 0;
    if (!byte_size(view.shape, element_size, &expected)) {
      throw bad("shape " + shape_text(view.shape) + " is too large");
    }
    if (begin > end || end - begin != expected) {
      throw bad("data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                "] do not match " + view.dtype + " " + shape_text(view.shape) + " (" +
                std::to_string(expected) + " bytes)");
    }
    if (end > buffer_size) {
      throw bad("data ends at byte " + std::to_string(end) + " but the buffer holds only " +
                std::to_string(buffer_size) + " (truncated)");
    }
    view.data = bytes.data() + 8 + n + begin;
    view.nbytes = static_cast<size_t>(expected);
    file.tensors_.emplace(name, std::move(view));
    entries.push_back({name, begin, end});
  }

  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t position = 0;
  for (const auto& e : entries) {
    if (e.begin < position) throw fail("tensor '" + e.name + "' overlaps the previous tensor");
    if (e.begin > position) {
      throw fail("gap of " + std::to_string(e.begin - position) + " bytes before tensor '" +
                 e.name + "'");
    }
    position = e.end;
    file.order_.push_back(e.name);
  }
  if (position != buffer_size) {
    throw fail(std::to_string(buffer_size - position) + " trailing bytes after the last tensor");
  }
  file.bytes_ = std::move(bytes);  // moving a vector keeps its buffer, so the views stay valid
  return file;
}

bool SafetensorsFile::contains(const std::string& name) const { return tensors_.count(name) > 0; }

const TensorView& SafetensorsFile::tensor(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) {
    throw SafetensorsError("safetensors file '" + source_ + "': no tensor named '" + name + "'");
  }
  return it->second;
}

std::vector<std::string> SafetensorsFile::names() const { return order_; }

std::vector<float> SafetensorsFile::f32(const std::string& name,
                                        const std::vector<int64_t>& expected_shape) const {
  const TensorView& t = tensor(name);
  if (t.dtype != "F32" || t.shape != expected_shape) {
    throw SafetensorsError("safetensors file '" + source_ + "': tensor '" + name +
                           "': expected F32 " + shape_text(expected_shape) + ", found " + t.dtype +
                           " " + shape_text(t.shape));
  }
  std::vector<float> out(t.nbytes / sizeof(float));
  if (t.nbytes > 0) std::memcpy(out.data(), t.data, t.nbytes);
  return out;
}

}  // namespace tts::kernels
