// Voice files: a complete random voice loads; every kind of damage gives an error naming the file
// and the problem; nothing falls back to another voice.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "random_voice_suite.h"
#include "temp_folder.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_random.h"
#include "tts/engine/voice_search.h"
#include "tts/kernels/file_record.h"
#include "tts/vocoder/model_files.h"

namespace fs = std::filesystem;
using namespace tts::engine;

namespace {

class VoiceFiles : public tts::testing_support::RandomVoiceSuite<VoiceFiles> {
 public:
  static fs::path voice_subfolder() { return "pristine"; }

 protected:
  // A fresh copy of the pristine voice to damage.
  fs::path copy(const std::string& name) {
    const fs::path to = folder() / name;
    fs::remove_all(to);
    fs::copy(voice_path(), to, fs::copy_options::recursive);
    return to;
  }
  static std::string load_error(const fs::path& folder) {
    try {
      Voice::load(folder);
    } catch (const VoiceError& e) {
      return e.what();
    }
    return "(loaded without error)";
  }
  static nlohmann::json read_json(const fs::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
  }
  static void write_json(const fs::path& p, const nlohmann::json& j) {
    std::ofstream(p) << j.dump(2);
  }
  // Rewrites voice.json's "files" with every listed file's size and CRC-32 as it is now, so that
  // a tampered voice passes the checksums and reaches the check under test.
  static void relist(const fs::path& voice) {
    auto j = read_json(voice / "voice.json");
    for (auto& entry : j["files"])
      entry = tts::kernels::file_record_json(
          tts::kernels::record_file(voice, entry["path"].get<std::string>()));
    write_json(voice / "voice.json", j);
  }
};

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "\"" << part << "\" not in: " << text;
}

TEST_F(VoiceFiles, RandomVoiceLoadsWithItsInfo) {
  auto voice = Voice::load(voice_path());
  EXPECT_EQ(voice->info().name, "random");
  EXPECT_EQ(voice->info().language, "en-us");
  EXPECT_EQ(voice->sample_rate(), 16000);
  EXPECT_EQ(voice->info().licence, "CC0-1.0");
  EXPECT_EQ(voice->info().files.size(), 4u);
  EXPECT_GT(voice->info().total_bytes(), 1000u);
  EXPECT_EQ(voice->vocoder().weights->config().layers, 4);
  EXPECT_EQ(voice->features().n_mels, 80);
}

TEST_F(VoiceFiles, MissingVoiceJsonIsNamed) {
  const fs::path v = copy("no-json");
  fs::remove(v / "voice.json");
  const std::string e = load_error(v);
  expect_contains(e, (v / "voice.json").string());
  expect_contains(e, "missing");
}

TEST_F(VoiceFiles, TruncatedVoiceJsonIsNotValidJson) {
  const fs::path v = copy("cut-json");
  fs::resize_file(v / "voice.json", 100);
  expect_contains(load_error(v), "not valid JSON");
}

TEST_F(VoiceFiles, UnsupportedFormatVersionIsRejected) {
  const fs::path v = copy("version");
  auto j = read_json(v / "voice.json");
  j["format_version"] = 99;
  write_json(v / "voice.json", j);
  expect_contains(load_error(v), "format_version 99 is not supported");
}

TEST_F(VoiceFiles, MissingFieldIsNamed) {
  const fs::path v = copy("no-licence");
  auto j = read_json(v / "voice.json");
  j.erase("licence");
  write_json(v / "voice.json", j);
  expect_contains(load_error(v), "missing \"licence\"");
}

// Found by fuzz/voice_fuzz (seed fuzz/corpus/voice/format_not_a_string): a field of the wrong type
// that voice.json reads with a default escaped as a JSON exception, not a VoiceError.
TEST_F(VoiceFiles, FieldsOfTheWrongTypeAreNamed) {
  for (const char* field : {"format", "description"}) {
    const fs::path v = copy(std::string("wrong-type-") + field);
    auto j = read_json(v / "voice.json");
    j[field] = nlohmann::json::array({1});
    write_json(v / "voice.json", j);
    const std::string e = load_error(v);
    expect_contains(e, (v / "voice.json").string());
    EXPECT_THROW(read_voice_info(v), VoiceError) << field;
  }
}

// "pitch_shift" says how the voice realises a pitch shift: absent it is the acoustic model (voices
// packed before the field existed), "audio" is read back, and anything else is named.
TEST_F(VoiceFiles, PitchShiftMethodIsReadAndABadOneIsNamed) {
  EXPECT_EQ(read_voice_info(voice_path()).pitch_shift, PitchShiftMethod::kModel);
  const fs::path v = copy("pitch-shift");
  auto j = read_json(v / "voice.json");
  j.erase("pitch_shift");
  write_json(v / "voice.json", j);
  EXPECT_EQ(read_voice_info(v).pitch_shift, PitchShiftMethod::kModel);
  j["pitch_shift"] = "audio";
  write_json(v / "voice.json", j);
  EXPECT_EQ(read_voice_info(v).pitch_shift, PitchShiftMethod::kAudio);
  EXPECT_TRUE(Voice::load(v)->can_shift_pitch());
  j["pitch_shift"] = "vocoder";
  write_json(v / "voice.json", j);
  const std::string e = load_error(v);
  expect_contains(e, (v / "voice.json").string());
  expect_contains(e, "\"pitch_shift\": \"vocoder\" is not a way to shift pitch");
  j["pitch_shift"] = 3;
  write_json(v / "voice.json", j);
  expect_contains(load_error(v), "pitch_shift");
}

// The languages a voice speaks: voice.json's "languages" (BCP 47), written by the packer; a voice
// with only the espeak-ng "language" is read as speaking that language's BCP 47 form.
TEST_F(VoiceFiles, LanguagesAreBcp47TagsAndTheOldFieldStillReads) {
  EXPECT_EQ(read_json(voice_path() / "voice.json")["languages"], nlohmann::json({"en-US"}));
  EXPECT_EQ(read_voice_info(voice_path()).languages, std::vector<std::string>({"en-US"}));
  const fs::path v = copy("languages");
  auto j = read_json(v / "voice.json");
  j.erase("languages");
  j["language"] = "es-419";
  write_json(v / "voice.json", j);
  EXPECT_EQ(read_voice_info(v).languages, std::vector<std::string>({"es-419"}));
  j["language"] = "en-us";
  j["languages"] = {"en-US", "es-MX"};
  write_json(v / "voice.json", j);
  EXPECT_EQ(Voice::load(v)->info().languages, std::vector<std::string>({"en-US", "es-MX"}));
  EXPECT_EQ(read_voice_info(v).languages_text(), "en-US,es-MX");
  j["languages"] = {"en_US"};
  write_json(v / "voice.json", j);
  expect_contains(load_error(v), "\"languages\" holds \"en_US\", not a BCP 47 tag");
  j["languages"] = nlohmann::json::array();
  write_json(v / "voice.json", j);
  expect_contains(load_error(v), "non-empty array");
}

// A voice names the espeak-ng voice of each language it speaks ("espeak_voices"); a language it
// does not name is phonemised with "language". Every mistake names voice.json and the field.
TEST_F(VoiceFiles, EspeakVoicesNameOneVoicePerLanguageAndAreChecked) {
  const fs::path v = copy("espeak-voices");
  const fs::path json_path = v / "voice.json";
  auto j = read_json(json_path);
  j["languages"] = {"en-US", "es-MX"};
  write_json(json_path, j);
  EXPECT_EQ(read_voice_info(v).espeak_voices, std::vector<std::string>({"en-us", "en-us"}));
  j["espeak_voices"] = {{"es-MX", "es-419"}};
  j["speaker"] = "Allison";
  j["sex"] = "female";
  write_json(json_path, j);
  const auto voice = Voice::load(v);
  EXPECT_EQ(voice->info().espeak_voices, std::vector<std::string>({"en-us", "es-419"}));
  EXPECT_EQ(voice->text().espeak_voice(1), "es-419");
  EXPECT_EQ(voice->text().find_language("es"), std::optional<std::size_t>(1));
  EXPECT_EQ(voice->info().speaker, "Allison");
  EXPECT_EQ(voice->info().sex, "female");

  auto error_with = [&](const char* key, const nlohmann::json& value) {
    auto damaged = j;
    damaged[key] = value;
    write_json(json_path, damaged);
    const std::string error = load_error(v);
    expect_contains(error, json_path.string());
    return error;
  };
  expect_contains(error_with("espeak_voices", {{"fr-CA", "fr"}}),
                  "\"espeak_voices\" names \"fr-CA\", which is not one of \"languages\" "
                  "(en-US, es-MX)");
  expect_contains(error_with("espeak_voices", {{"es-MX", "xx-nowhere"}}),
                  "\"espeak_voices\": espeak-ng has no voice for language \"xx-nowhere\"");
  expect_contains(error_with("espeak_voices", {{"en-US", "en-gb"}}),
                  "\"language\" is \"en-us\": they must agree");
  expect_contains(error_with("espeak_voices", {{"es-MX", ""}}), "an empty espeak-ng voice");
  expect_contains(error_with("espeak_voices", nlohmann::json::array({"es-419"})),
                  "\"espeak_voices\" must be an object");
  expect_contains(error_with("espeak_voices", {{"es-MX", 419}}), "\"espeak_voices\" must be");
  expect_contains(error_with("sex", "f"), "\"sex\" is \"f\", not \"female\" or \"male\"");
  expect_contains(error_with("speaker", 3), "\"speaker\" must be a string");
}

// The packer writes what it is given and refuses what the loader would.
TEST_F(VoiceFiles, TheManifestWritesEspeakVoicesSpeakerAndSex) {
  RandomVoiceOptions options;
  options.languages = {"en-US", "es-MX"};
  options.espeak_voices = {{"es-MX", "es-419"}};
  const fs::path v = folder() / "bilingual";
  create_random_voice(v, options);
  const auto j = read_json(v / "voice.json");
  EXPECT_EQ(j["espeak_voices"], nlohmann::json({{"es-MX", "es-419"}}));
  EXPECT_FALSE(j.contains("speaker"));
  options.espeak_voices = {{"fr-FR", "fr"}};
  try {
    create_random_voice(folder() / "wrong", options);
    ADD_FAILURE() << "a voice for a language it does not speak was written";
  } catch (const VoiceError& e) {
    expect_contains(e.what(), "\"espeak_voices\" names \"fr-FR\"");
  }
}

// vocoder.json's "weights" must be a file beside it, as acoustic.json's is (one elsewhere would
// be read without the voice's checksums), and one of the wrong type is named like any other error.
TEST_F(VoiceFiles, VocoderWeightsMustBeAFileBesideVocoderJson) {
  const fs::path v = copy("vocoder-weights");
  for (const nlohmann::json& weights : {nlohmann::json("../acoustic/acoustic.safetensors"),
                                        nlohmann::json(""), nlohmann::json(5)}) {
    auto j = read_json(v / "vocoder" / "vocoder.json");
    j["weights"] = weights;
    write_json(v / "vocoder" / "vocoder.json", j);
    try {
      tts::vocoder::load_vocoder(v / "vocoder");
      ADD_FAILURE() << "weights " << weights << " were loaded";
    } catch (const std::runtime_error& e) {
      expect_contains(e.what(), (v / "vocoder" / "vocoder.json").string());
    }
  }
}

TEST_F(VoiceFiles, TruncatedWeightsAreNamedAsTruncated) {
  const fs::path v = copy("cut-weights");
  const fs::path file = v / "vocoder" / "vocoder.safetensors";
  fs::resize_file(file, fs::file_size(file) - 100);
  const std::string e = load_error(v);
  expect_contains(e, file.string());
  expect_contains(e, "truncated");
}

TEST_F(VoiceFiles, FlippedByteIsCaughtByTheChecksum) {
  const fs::path v = copy("flipped");
  const fs::path file = v / "acoustic" / "acoustic.safetensors";
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(file) - 10));
    f.put('\x7f');
  }
  const std::string e = load_error(v);
  expect_contains(e, file.string());
  expect_contains(e, "checksum mismatch");
}

TEST_F(VoiceFiles, MissingWeightFileIsNamed) {
  const fs::path v = copy("no-weights");
  fs::remove(v / "acoustic" / "acoustic.safetensors");
  const std::string e = load_error(v);
  expect_contains(e, (v / "acoustic" / "acoustic.safetensors").string());
  expect_contains(e, "missing");
}

TEST_F(VoiceFiles, UnlistedRequiredFileIsAnError) {
  const fs::path v = copy("unlisted");
  auto j = read_json(v / "voice.json");
  j["files"].erase(0);
  write_json(v / "voice.json", j);
  expect_contains(load_error(v), "does not list");
}

TEST_F(VoiceFiles, PathLeavingTheFolderIsRejected) {
  const fs::path v = copy("escape");
  auto j = read_json(v / "voice.json");
  j["files"][0]["path"] = "../pristine/voice.json";
  write_json(v / "voice.json", j);
  expect_contains(load_error(v), "leaves the voice folder");
}

// Weights with a consistent checksum but the wrong shapes (another config's tensors): the tensor
// check names the tensor and both shapes.
TEST_F(VoiceFiles, WrongTensorShapeIsNamed) {
  const fs::path v = copy("shape");
  tts::vocoder::WaveNetConfig other;
  other.layers = 4;
  other.dilation_cycle = 4;
  other.residual_channels = 12;  // the voice's config says 8
  other.skip_channels = 16;
  tts::vocoder::WaveNetWeights weights(other);
  weights.initialise(3);
  const fs::path scratch = folder() / "scratch-vocoder";
  tts::vocoder::save_vocoder(scratch, weights, tts::kernels::MelConfig{});
  fs::copy_file(scratch / "vocoder.safetensors", v / "vocoder" / "vocoder.safetensors",
                fs::copy_options::overwrite_existing);
  VoiceManifest m;
  m.name = "shape";
  write_voice_manifest(v, m, tts::frontend::SymbolTable::default_table());
  const std::string e = load_error(v);
  expect_contains(e, "vocoder.safetensors");
  expect_contains(e, "embedding");
}

TEST_F(VoiceFiles, GarbageSafetensorsHeaderIsNamed) {
  const fs::path v = copy("garbage");
  const fs::path file = v / "vocoder" / "vocoder.safetensors";
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f.write("\xff\xff\xff\xff\xff\xff\xff\x7f", 8);
  }
  VoiceManifest m;
  m.name = "garbage";
  write_voice_manifest(v, m, tts::frontend::SymbolTable::default_table());
  expect_contains(load_error(v), file.string());
}

TEST_F(VoiceFiles, MismatchedFeaturesAreRejected) {
  const fs::path v = copy("features");
  auto j = read_json(v / "voice.json");
  j["features"]["fmax"] = 7000.0;
  write_json(v / "voice.json", j);
  expect_contains(load_error(v), "features differ");
}

TEST_F(VoiceFiles, MismatchedSymbolTableIsRejected) {
  const fs::path v = copy("symbols");
  auto j = read_json(v / "voice.json");
  std::swap(j["phonemes"]["symbols"][10], j["phonemes"]["symbols"][11]);
  write_json(v / "voice.json", j);
  expect_contains(load_error(v), "symbol table differs");
}

TEST_F(VoiceFiles, NameIsFoundOnTheSearchPathAndNothingFallsBack) {
  const fs::path path = folder() / "path";
  fs::create_directories(path);
  fs::copy(voice_path(), path / "good", fs::copy_options::recursive);
  fs::copy(voice_path(), path / "broken", fs::copy_options::recursive);
  fs::remove(path / "broken" / "vocoder" / "vocoder.json");
  ::setenv("TTS_VOICE_PATH", path.c_str(), 1);
  EXPECT_EQ(resolve_voice("good"), path / "good");
  EXPECT_NO_THROW(Voice::load(resolve_voice("good")));
  // A broken voice is an error, never the good one in its place.
  expect_contains(load_error(resolve_voice("broken")), "vocoder.json");
  try {
    resolve_voice("absent");
    ADD_FAILURE() << "absent voice resolved";
  } catch (const VoiceNotFoundError& e) {
    expect_contains(e.what(), "no voice named \"absent\"");
    expect_contains(e.what(), path.string());
  }
  EXPECT_THROW(resolve_voice(folder().string() + "/nowhere"), VoiceNotFoundError);
  ::unsetenv("TTS_VOICE_PATH");
}

TEST_F(VoiceFiles, InfoIsReadWithoutWeights) {
  const fs::path v = copy("info-only");
  fs::remove(v / "vocoder" / "vocoder.safetensors");
  const VoiceInfo info = read_voice_info(v);  // `tts voices` can list it
  EXPECT_EQ(info.sample_rate, 16000);
  EXPECT_THROW(Voice::load(v), VoiceError);
}

// voice.json's "acoustic" and "vocoder" name sub-folders of the voice, which are what is loaded:
// a path to another folder is refused, naming the key, and a sub-folder of another name loads.
TEST_F(VoiceFiles, ModelFolderKeysNamePlainSubFolders) {
  const fs::path v = copy("model-folder-keys");
  for (const nlohmann::json& value :
       {nlohmann::json("../pristine/acoustic"),
        nlohmann::json((voice_path() / "acoustic").string()), nlohmann::json("acoustic/."),
        nlohmann::json(".."), nlohmann::json(""), nlohmann::json(5)}) {
    auto j = read_json(v / "voice.json");
    j["acoustic"] = value;
    write_json(v / "voice.json", j);
    const std::string e = load_error(v);
    expect_contains(e, (v / "voice.json").string());
    expect_contains(e, "\"acoustic\" must be the name of a sub-folder");
  }
  const fs::path renamed = copy("model-folder-renamed");
  fs::rename(renamed / "acoustic", renamed / "model");
  auto j = read_json(renamed / "voice.json");
  j["acoustic"] = "model";
  for (auto& entry : j["files"]) {
    const std::string path = entry["path"];
    if (path.rfind("acoustic/", 0) == 0) entry["path"] = "model/" + path.substr(9);
  }
  write_json(renamed / "voice.json", j);
  EXPECT_EQ(Voice::load(renamed)->info().acoustic_folder, "model");
}

// Every file a voice loads is inside it once links are resolved; a model sub-folder that is a link
// (the bundled voices' shared vocoder) holds its files to the folder it names.
TEST_F(VoiceFiles, ListedFileLinkingOutsideTheVoiceIsRefused) {
  const fs::path v = copy("link-out");
  const fs::path outside = folder() / "outside.safetensors";
  fs::rename(v / "acoustic" / "acoustic.safetensors", outside);
  fs::create_symlink(outside, v / "acoustic" / "acoustic.safetensors");
  std::string e = load_error(v);  // the size and CRC-32 match: only the link is wrong
  expect_contains(e, (v / "acoustic" / "acoustic.safetensors").string());
  expect_contains(e, "outside the voice folder");

  const fs::path linked = copy("shared-link");
  const fs::path shared = folder() / "shared-vocoder-copy";
  fs::remove_all(shared);
  fs::rename(linked / "vocoder", shared);
  fs::create_directory_symlink("../shared-vocoder-copy", linked / "vocoder");
  EXPECT_NO_THROW(Voice::load(linked));
  const fs::path weights = shared / "vocoder.safetensors";
  fs::rename(weights, folder() / "outside-vocoder.safetensors");
  fs::create_symlink(folder() / "outside-vocoder.safetensors", weights);
  e = load_error(linked);
  expect_contains(e, "outside the folder that vocoder/ links to");
}

// A weights file that a model's JSON names must be listed, so its size and CRC-32 are checked.
TEST_F(VoiceFiles, WeightsNotListedInFilesAreRefused) {
  const fs::path v = copy("unlisted-weights");
  fs::copy_file(v / "acoustic" / "acoustic.safetensors", v / "acoustic" / "other.safetensors");
  auto acoustic = read_json(v / "acoustic" / "acoustic.json");
  acoustic["weights"] = "other.safetensors";
  write_json(v / "acoustic" / "acoustic.json", acoustic);
  relist(v);
  const std::string e = load_error(v);
  expect_contains(e, (v / "acoustic" / "acoustic.json").string());
  expect_contains(e, "acoustic/other.safetensors, which voice.json's \"files\" does not list");
}

// voice.json is a few KiB: a huge one is refused from its size, before it is parsed.
TEST_F(VoiceFiles, OversizedVoiceJsonIsRefusedBeforeParsing) {
  const fs::path v = copy("huge-json");
  std::ofstream(v / "voice.json", std::ios::app) << std::string(2 << 20, ' ');
  const std::string e = load_error(v);
  expect_contains(e, (v / "voice.json").string());
  expect_contains(e, "more than the 1048576");
  EXPECT_THROW(read_voice_info(v), VoiceError);
}

// 16000.5 is a mistake, not 16000: each integer field names itself.
TEST_F(VoiceFiles, IntegerFieldsMustBeIntegers) {
  const auto error_with = [&](const std::string& name, const auto& change) {
    const fs::path v = copy(name);
    auto j = read_json(v / "voice.json");
    change(j);
    write_json(v / "voice.json", j);
    const std::string e = load_error(v);
    expect_contains(e, (v / "voice.json").string());
    return e;
  };
  expect_contains(error_with("rate", [](nlohmann::json& j) { j["sample_rate"] = 16000.5; }),
                  "\"sample_rate\" must be an integer, not 16000.5");
  expect_contains(error_with("version", [](nlohmann::json& j) { j["format_version"] = 2.0; }),
                  "\"format_version\" must be an integer");
  expect_contains(error_with("huge", [](nlohmann::json& j) { j["sample_rate"] = 1u << 31; }),
                  "\"sample_rate\" must be an integer");
  expect_contains(error_with("hop", [](nlohmann::json& j) { j["features"]["hop_length"] = 200.5; }),
                  "\"hop_length\" must be an integer");
  for (const nlohmann::json& bytes : {nlohmann::json(12.5), nlohmann::json(-1)})
    expect_contains(error_with("bytes", [&](nlohmann::json& j) { j["files"][0]["bytes"] = bytes; }),
                    "\"bytes\" of acoustic/acoustic.json must be a non-negative integer");
}

// The models' own format_version is an integer too.
TEST_F(VoiceFiles, ModelFormatVersionsMustBeIntegers) {
  for (const char* sub : {"vocoder", "acoustic"}) {
    const fs::path v = copy(std::string("model-version-") + sub);
    const fs::path json = v / sub / (std::string(sub) + ".json");
    auto j = read_json(json);
    j["format_version"] = j["format_version"].get<int>() + 0.5;
    write_json(json, j);
    relist(v);
    const std::string e = load_error(v);
    expect_contains(e, json.string());
    expect_contains(e, "\"format_version\" must be an integer");
  }
}

// receptive_field is written for the reader; one that the layers do not imply is a mistake.
TEST_F(VoiceFiles, ReceptiveFieldMustMatchTheLayers) {
  const fs::path v = copy("receptive");
  EXPECT_NO_THROW(tts::vocoder::load_vocoder(v / "vocoder"));  // as written, it agrees
  auto j = read_json(v / "vocoder" / "vocoder.json");
  ASSERT_TRUE(j["wavenet"].contains("receptive_field"));
  j["wavenet"]["receptive_field"] = j["wavenet"]["receptive_field"].get<int>() + 1;
  write_json(v / "vocoder" / "vocoder.json", j);
  relist(v);
  const std::string e = load_error(v);
  expect_contains(e, (v / "vocoder" / "vocoder.json").string());
  expect_contains(e, "receptive_field");
  expect_contains(e, "layers");
}

// A FIFO, a device or a link loop in place of a listed file is named for what it is (a FIFO is
// never opened: the read would wait for ever), not reported as missing.
TEST_F(VoiceFiles, SubFileThatIsNotARegularFileIsNamed) {
  const auto error_with = [&](const std::string& name, const auto& make) {
    const fs::path v = copy(name);
    const fs::path file = v / "vocoder" / "vocoder.safetensors";
    fs::remove(file);
    make(file);
    const std::string e = load_error(v);
    expect_contains(e, file.string());
    EXPECT_EQ(e.find("missing"), std::string::npos) << e;
    return e;
  };
  expect_contains(
      error_with("fifo", [](const fs::path& f) { ASSERT_EQ(::mkfifo(f.c_str(), 0600), 0); }),
      "is a FIFO, not a regular file");
  expect_contains(
      error_with("device", [](const fs::path& f) { fs::create_symlink("/dev/zero", f); }),
      "is a device");
  expect_contains(error_with("loop",
                             [](const fs::path& f) {
                               fs::create_symlink(f.string() + ".b", f);
                               fs::create_symlink(f, f.string() + ".b");
                             }),
                  "symbolic link loop");
}

}  // namespace
