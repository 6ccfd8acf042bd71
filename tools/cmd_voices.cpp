// `tts voices`: list the voices on the search path; `tts voices create-random DIR` writes a
// randomly initialised voice (tests, benchmarks); `tts voices pack DIR` assembles a voice from
// trained models; export, install and remove are in cmd_voices_sharing.cpp.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "commands.h"
#include "tts/engine/voice.h"
#include "tts/engine/voice_pack.h"
#include "tts/engine/voice_random.h"
#include "tts/engine/voice_search.h"

namespace tts::cli {

namespace {

std::string human_size(std::uint64_t bytes) {
  char text[32];
  if (bytes >= 1024ull * 1024)
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  else
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  return text;
}

// The folders searched, in order, each marked when it does not exist.
void print_search_path() {
  std::cout << "search path:\n";
  for (const auto& f : engine::voice_search_path()) {
    std::error_code ec;
    std::cout << "  " << f.string() << (std::filesystem::is_directory(f, ec) ? "" : " (missing)")
              << "\n";
  }
}

void list_voices() {
  auto folders = engine::list_voices();
  if (folders.empty()) {
    std::cout << "no voices installed\n";
    print_search_path();
    return;
  }
  // Rows first, so that each column is as wide as its widest entry.
  struct Row {
    std::string name, languages, speaker, sex, rate, size, licence, folder, unusable;
  };
  std::vector<Row> rows;
  rows.push_back({"NAME", "LANGUAGES", "SPEAKER", "SEX", "RATE", "SIZE", "LICENCE", "FOLDER", ""});
  for (const auto& folder : folders) {
    Row row;
    row.name = folder.filename().string();
    try {
      const auto info = engine::read_voice_info(folder);
      row.languages = info.languages_text();
      row.speaker = info.speaker.empty() ? "-" : info.speaker;
      row.sex = info.sex.empty() ? "-" : info.sex;
      row.rate = std::to_string(info.sample_rate);
      row.size = human_size(info.total_bytes());
      row.licence = info.licence;
      row.folder = folder.string();
    } catch (const std::exception& e) {
      row.unusable = e.what();
    }
    rows.push_back(std::move(row));
  }
  std::size_t widths[7] = {};
  for (const Row& r : rows) {
    const std::string* cells[7] = {&r.name, &r.languages, &r.speaker, &r.sex,
                                   &r.rate, &r.size,      &r.licence};
    for (int c = 0; c < 7; ++c) widths[c] = std::max(widths[c], cells[c]->size());
  }
  auto w = [&](int c) { return static_cast<int>(widths[c]); };
  for (const Row& r : rows) {
    if (!r.unusable.empty()) {
      std::printf("%-*s (unusable: %s)\n", w(0), r.name.c_str(), r.unusable.c_str());
      continue;
    }
    std::printf("%-*s  %-*s  %-*s  %-*s  %*s  %*s  %-*s  %s\n", w(0), r.name.c_str(), w(1),
                r.languages.c_str(), w(2), r.speaker.c_str(), w(3), r.sex.c_str(), w(4),
                r.rate.c_str(), w(5), r.size.c_str(), w(6), r.licence.c_str(), r.folder.c_str());
  }
  std::fflush(stdout);
  print_search_path();
}

// --espeak-voice TAG=VOICE items as voice.json's "espeak_voices".
std::map<std::string, std::string> espeak_voices_of(const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw CLI::ValidationError("--espeak-voice", "\"" + item + "\" is not TAG=VOICE");
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

void register_pack(CLI::App& voices, int& exit_code) {
  struct Options {
    std::string folder;
    engine::VoicePackSources sources;
    engine::VoiceManifest manifest;
    std::vector<std::string> extra;
    std::string pitch_shift = "model";
    std::vector<std::string> espeak_voices;
  };
  auto o = std::make_shared<Options>();
  CLI::App* pack = voices.add_subcommand(
      "pack", "Assemble a voice folder from a trained acoustic model and vocoder");
  pack->add_option("folder", o->folder, "Voice folder to write")->required();
  pack->add_option("--acoustic", o->sources.acoustic, "OUT folder of `tts train acoustic`")
      ->required()
      ->check(CLI::ExistingDirectory);
  pack->add_option("--vocoder", o->sources.vocoder, "OUT folder of `tts train vocoder`")
      ->required()
      ->check(CLI::ExistingDirectory);
  pack->add_option("--name", o->manifest.name, "Voice name")->required();
  pack->add_option("--language", o->manifest.language, "espeak-ng voice")->capture_default_str();
  pack->add_option("--languages", o->manifest.languages,
                   "BCP 47 tags of the languages it speaks (default: that of --language)");
  pack->add_option(
      "--espeak-voice", o->espeak_voices,
      "TAG=VOICE: the espeak-ng voice that phonemises one of --languages (es-MX=es-419); "
      "repeatable; a tag without one uses --language");
  pack->add_option("--speaker", o->manifest.speaker, "Who speaks (shown by `tts voices`)");
  pack->add_option("--sex", o->manifest.sex, "The speaker's sex: female or male")
      ->check(CLI::IsMember({"female", "male"}));
  pack->add_option("--licence", o->manifest.licence, "Licence of the voice (SPDX)")->required();
  pack->add_option("--source", o->manifest.source, "Where the recordings came from")->required();
  pack->add_option("--description", o->manifest.description, "Free text");
  pack->add_option("--pitch-shift", o->pitch_shift,
                   "How `tts say --pitch` is realised: model (the acoustic model's F0) or audio "
                   "(the vocoder's output, formants kept; docs/voice-format.md)")
      ->check(CLI::IsMember({"model", "audio"}))
      ->capture_default_str();
  pack->add_option("--extra", o->extra,
                   "FILE=PATH: copy FILE into the voice as PATH (model card, logs); repeatable");
  pack->callback([o, &exit_code] {
    for (const std::string& item : o->extra) {
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
        throw CLI::ValidationError("--extra", "\"" + item + "\" is not FILE=PATH");
      o->sources.extra_files.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    o->manifest.espeak_voices = espeak_voices_of(o->espeak_voices);
    o->manifest.pitch_shift = engine::parse_pitch_shift_method(o->pitch_shift);
    try {
      engine::pack_voice(o->folder, o->sources, o->manifest);
      std::cout << "wrote voice \"" << o->manifest.name << "\" to " << o->folder << "\n";
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      std::cerr << "tts voices pack: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
  });
}

}  // namespace

void register_voices(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("voices",
                                     "List installed voices (name, languages, speaker, "
                                     "sex, sample rate, size, licence) and the search path");
  auto random = std::make_shared<engine::RandomVoiceOptions>();
  auto folder = std::make_shared<std::string>();
  auto random_espeak_voices = std::make_shared<std::vector<std::string>>();
  CLI::App* create = cmd->add_subcommand(
      "create-random", "Write a voice with random weights (it babbles; for tests and benchmarks)");
  create->add_option("folder", *folder, "Folder to create")->required();
  create->add_option("--name", random->name, "Voice name")->capture_default_str();
  create->add_option("--seed", random->seed, "Initialisation seed")
      ->capture_default_str()
      ->check(seed_validator());
  create->add_option("--language", random->language, "espeak-ng voice")->capture_default_str();
  create->add_option("--languages", random->languages,
                     "BCP 47 tags of the languages it speaks (default: that of --language)");
  create->add_option("--espeak-voice", *random_espeak_voices,
                     "TAG=VOICE: the espeak-ng voice of one of --languages; repeatable");
  create->add_option("--size", random->size, "tiny or full")
      ->check(CLI::IsMember({"tiny", "full"}))
      ->capture_default_str();
  create->callback([random, folder, random_espeak_voices, &exit_code] {
    try {
      random->espeak_voices = espeak_voices_of(*random_espeak_voices);
      engine::create_random_voice(*folder, *random);
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      std::cerr << "tts voices create-random: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
  });
  register_pack(*cmd, exit_code);
  register_voices_create(*cmd, exit_code);
  register_voices_sharing(*cmd, exit_code);
  cmd->callback([cmd, &exit_code] {
    if (!cmd->get_subcommands().empty()) return;
    list_voices();
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
