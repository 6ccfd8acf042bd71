// `tts voices`: list the voices on the search path; `tts voices create-random DIR` writes a
// randomly initialised voice (tests, benchmarks).
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "tts/engine/voice.h"
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

void list_voices() {
  auto folders = engine::list_voices();
  if (folders.empty()) {
    std::cout << "no voices installed (searched";
    for (const auto& f : engine::voice_search_path()) std::cout << " " << f.string();
    std::cout << ")\n";
    return;
  }
  std::printf("%-20s %-8s %6s %10s  %-14s %s\n", "NAME", "LANGUAGE", "RATE", "SIZE", "LICENCE",
              "FOLDER");
  for (const auto& folder : folders) {
    try {
      const auto info = engine::read_voice_info(folder);
      std::printf("%-20s %-8s %6d %10s  %-14s %s\n", folder.filename().string().c_str(),
                  info.language.c_str(), info.sample_rate, human_size(info.total_bytes()).c_str(),
                  info.licence.c_str(), folder.string().c_str());
    } catch (const std::exception& e) {
      std::printf("%-20s (unusable: %s)\n", folder.filename().string().c_str(), e.what());
    }
  }
}

}  // namespace

void register_voices(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("voices",
                                     "List installed voices (name, language, sample "
                                     "rate, size, licence)");
  auto random = std::make_shared<engine::RandomVoiceOptions>();
  auto folder = std::make_shared<std::string>();
  CLI::App* create = cmd->add_subcommand(
      "create-random", "Write a voice with random weights (it babbles; for tests and benchmarks)");
  create->add_option("folder", *folder, "Folder to create")->required();
  create->add_option("--name", random->name, "Voice name")->capture_default_str();
  create->add_option("--seed", random->seed, "Initialisation seed")->capture_default_str();
  create->add_option("--size", random->size, "tiny or full")
      ->check(CLI::IsMember({"tiny", "full"}))
      ->capture_default_str();
  create->callback([random, folder, &exit_code] {
    try {
      engine::create_random_voice(*folder, *random);
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      std::cerr << "tts voices create-random: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
  });
  cmd->callback([cmd, create, &exit_code] {
    if (cmd->got_subcommand(create)) return;
    list_voices();
    exit_code = kExitOk;
  });
}

}  // namespace tts::cli
