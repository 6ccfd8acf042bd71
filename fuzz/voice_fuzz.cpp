// libFuzzer target for loading a voice (engine/voice.cpp: voice.json, then the models'
// acoustic.json / vocoder.json and their safetensors weights) and for the safetensors parser
// itself (kernels/io/safetensors.cpp). A tiny random voice is made at start-up (the template);
// the first input byte chooses what the rest of the input is:
//   0 voice.json as is          1 voice.json, with its "files" records made to fit (when it is
//   2 acoustic/acoustic.json      a JSON object), so that the checks behind the checksums are
//   3 vocoder/vocoder.json        reached; 2-4 also refit voice.json's records of the other files
//   4 vocoder/vocoder.safetensors
//   5 a safetensors file in memory (SafetensorsFile::from_bytes)
//
// Checks, besides the sanitizers': read_voice_info and Voice::load either throw VoiceError naming
// the voice folder or return a voice that is consistent (sample rate and features agree between
// voice.json, the acoustic model and the vocoder; the symbol table is the acoustic model's size);
// nothing else escapes. A safetensors buffer either throws SafetensorsError or gives tensors whose
// sizes match their dtype and shape and that tile the buffer; written back with SafetensorsWriter
// they parse to the same names, dtypes, shapes, bytes and metadata.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_random.h"
#include "tts/kernels/file_record.h"
#include "tts/kernels/safetensors.h"

namespace fs = std::filesystem;
using tts::engine::Voice;
using tts::engine::VoiceError;
using tts::kernels::SafetensorsError;
using tts::kernels::SafetensorsFile;

namespace {

const char* const kFiles[] = {"voice.json", "voice.json", "acoustic/acoustic.json",
                              "vocoder/vocoder.json", "vocoder/vocoder.safetensors"};

struct Folders {
  fs::path voice_template, work;
};

const Folders& folders() {
  static const Folders f = [] {
    Folders f;
    f.voice_template = tts::fuzz::scratch() / "voice-template";
    f.work = tts::fuzz::scratch() / "voice";
    tts::engine::RandomVoiceOptions options;
    options.size = "tiny";
    tts::engine::create_random_voice(f.voice_template, options);
    fs::copy(f.voice_template, f.work, fs::copy_options::recursive);
    return f;
  }();
  return f;
}

// voice.json's "files" records, made to fit the files now in the work folder.
void refit_records(nlohmann::json& voice_json, const fs::path& work) {
  nlohmann::json files = nlohmann::json::array();
  for (const char* path : {"acoustic/acoustic.json", "acoustic/acoustic.safetensors",
                           "vocoder/vocoder.json", "vocoder/vocoder.safetensors"})
    files.push_back(tts::kernels::file_record_json(tts::kernels::record_file(work, path)));
  voice_json["files"] = files;
}

void check_voice(const fs::path& work) {
  try {
    const auto info = tts::engine::read_voice_info(work);
    TTS_FUZZ_CHECK(!info.name.empty() && info.sample_rate > 0);
  } catch (const VoiceError& e) {
    TTS_FUZZ_CHECK(std::string(e.what()).find(work.string()) != std::string::npos);
  }
  std::shared_ptr<const Voice> voice;
  try {
    voice = Voice::load(work);
  } catch (const VoiceError& e) {
    TTS_FUZZ_CHECK(std::string(e.what()).find(work.string()) != std::string::npos);
    return;
  }
  TTS_FUZZ_CHECK(voice->sample_rate() == voice->features().sample_rate);
  TTS_FUZZ_CHECK(nlohmann::json(voice->vocoder().features) == nlohmann::json(voice->features()));
  TTS_FUZZ_CHECK(nlohmann::json(voice->acoustic().features()) == nlohmann::json(voice->features()));
  // Every symbol of the voice's table is one the acoustic model takes.
  std::vector<std::int32_t> ids(voice->symbols().size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int32_t>(i);
  const auto out = voice->acoustic().synthesize(ids, tts::acoustic::AcousticControls{});
  TTS_FUZZ_CHECK(out.durations.size() == ids.size());
  TTS_FUZZ_CHECK(out.mel.rows() == voice->features().n_mels);
  TTS_FUZZ_CHECK(std::accumulate(out.durations.begin(), out.durations.end(), 0L) == out.mel.cols());
}

void check_safetensors(std::string_view bytes) {
  std::vector<std::byte> buffer(bytes.size());
  if (!bytes.empty()) std::memcpy(buffer.data(), bytes.data(), bytes.size());
  std::optional<SafetensorsFile> file;
  try {
    file.emplace(SafetensorsFile::from_bytes(std::move(buffer), "fuzz.safetensors"));
  } catch (const SafetensorsError& e) {
    TTS_FUZZ_CHECK(std::string(e.what()).find("fuzz.safetensors") != std::string::npos);
    return;
  }
  // The header's length, then the tensors tiling the rest in buffer order.
  std::uint64_t header = 0;
  std::memcpy(&header, bytes.data(), 8);
  std::size_t at = 8 + static_cast<std::size_t>(header);
  tts::kernels::SafetensorsWriter writer;
  for (const auto& [key, value] : file->metadata()) writer.set_metadata(key, value);
  for (const std::string& name : file->names()) {
    const auto& t = file->tensor(name);
    std::size_t count = 1;
    for (std::int64_t d : t.shape) {
      TTS_FUZZ_CHECK(d >= 0);
      count *= static_cast<std::size_t>(d);
    }
    TTS_FUZZ_CHECK(t.nbytes == count * tts::kernels::safetensors_dtype_size(t.dtype));
    at += t.nbytes;
    writer.add(name, t.dtype, t.shape, t.data, t.nbytes);  // a parsed file must be writable
  }
  TTS_FUZZ_CHECK(at == bytes.size());
  const auto written = writer.to_bytes();
  const auto back = SafetensorsFile::from_bytes(written, "written.safetensors");
  TTS_FUZZ_CHECK(back.names() == file->names());
  TTS_FUZZ_CHECK(back.metadata() == file->metadata());
  for (const std::string& name : file->names()) {
    const auto &a = file->tensor(name), &b = back.tensor(name);
    TTS_FUZZ_CHECK(a.dtype == b.dtype && a.shape == b.shape && a.nbytes == b.nbytes);
    TTS_FUZZ_CHECK(a.nbytes == 0 || std::memcmp(a.data, b.data, a.nbytes) == 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] % 6;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (mode == 5) {
    check_safetensors(rest);
    return 0;
  }
  const Folders& f = folders();
  const fs::path target = f.work / kFiles[mode];
  tts::fuzz::write_bytes(target, rest);
  if (mode >= 1) {
    nlohmann::json voice_json;
    if (mode == 1)
      voice_json = nlohmann::json::parse(rest, nullptr, /*allow_exceptions=*/false);
    else
      voice_json = nlohmann::json::parse(tts::fuzz::read_bytes(f.voice_template / "voice.json"));
    if (voice_json.is_object()) {
      refit_records(voice_json, f.work);
      tts::fuzz::write_bytes(f.work / "voice.json", voice_json.dump());
    }
  }
  check_voice(f.work);
  // Back to the template for the next input.
  for (const char* name : {"voice.json", kFiles[mode]})
    fs::copy_file(f.voice_template / name, f.work / name, fs::copy_options::overwrite_existing);
  return 0;
}

// With TTS_FUZZ_SEEDS set, writes the template's files as seeds of modes 0 and 2-4, and a small
// safetensors file (metadata, several dtypes, a 0-d and an empty tensor) for mode 5.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const Folders& f = folders();
  if (tts::fuzz::seeds_folder().empty()) return 0;
  tts::fuzz::write_seed("voice_json", 0, f.voice_template / "voice.json");
  tts::fuzz::write_seed("acoustic_json", 2, f.voice_template / "acoustic/acoustic.json");
  tts::fuzz::write_seed("vocoder_json", 3, f.voice_template / "vocoder/vocoder.json");
  tts::fuzz::write_seed("vocoder_safetensors", 4, f.voice_template / "vocoder/vocoder.safetensors");
  tts::kernels::SafetensorsWriter writer;
  writer.set_metadata("format", "tts-fuzz");
  const float matrix[6] = {1, 2, 3, 4, 5, 6};
  writer.add_f32("matrix", {2, 3}, matrix);
  const std::int64_t scalar = -5;
  writer.add("scalar", "I64", {}, &scalar, sizeof scalar);
  const std::uint8_t bytes[3] = {1, 2, 3};
  writer.add("bytes", "U8", {3}, bytes, sizeof bytes);
  writer.add("empty", "F16", {0, 4}, nullptr, 0);
  writer.write(tts::fuzz::scratch() / "small.safetensors");
  tts::fuzz::write_seed("small_safetensors", 5, tts::fuzz::scratch() / "small.safetensors");
  return 0;
}
