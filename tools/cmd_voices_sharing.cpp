// `tts voices export NAME`, `tts voices install FILE|DIR` and `tts voices remove NAME`: a voice as
// one .ttsvoice file (tts/voice_sharing/voice_archive.h, docs/voice-format.md "Sharing a voice").
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "tts/engine/voice.h"
#include "tts/voice_sharing/voice_archive.h"

namespace tts::cli {

namespace {

// A refused archive or a voice that does not load is bad input (3); anything else that fails is a
// failure (1).
int report_failure(const char* command, const std::exception& e) {
  std::cerr << "tts voices " << command << ": " << e.what() << "\n";
  const bool bad_input = dynamic_cast<const sharing::ArchiveError*>(&e) != nullptr ||
                         dynamic_cast<const engine::VoiceError*>(&e) != nullptr;
  return bad_input ? kExitBadInput : kExitFailure;
}

struct FolderChoice {
  bool system = false;
  std::string to;
  std::filesystem::path folder() const {
    if (!to.empty()) return to;
    return system ? sharing::system_voice_folder() : sharing::user_voice_folder();
  }
};

void add_folder_options(CLI::App& cmd, FolderChoice& choice, const char* verb) {
  CLI::Option* system =
      cmd.add_flag("--system", choice.system,
                   std::string(verb) +
                       " the installed voices folder (<prefix>/share/tts/voices) instead of "
                       "the user's ($XDG_DATA_HOME/tts/voices or ~/.local/share/tts/voices)");
  cmd.add_option("--to", choice.to, std::string(verb) + " this voice folder instead")
      ->excludes(system);
}

void register_export(CLI::App& voices, int& exit_code) {
  struct Options {
    std::string voice;
    std::string output;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = voices.add_subcommand(
      "export",
      "Write a voice into one .ttsvoice file (voice.json, weights, model card, every "
      "other file; a shared vocoder included) for `tts voices install`");
  cmd->add_option("voice", o->voice, "Voice name on the search path, or a voice folder")
      ->required();
  cmd->add_option("-o,--output", o->output, "Archive to write (default: NAME.ttsvoice)");
  cmd->callback([o, &exit_code] {
    try {
      const std::filesystem::path folder = engine::resolve_voice(o->voice);
      const std::filesystem::path output =
          o->output.empty()
              ? std::filesystem::path(std::filesystem::canonical(folder).filename().string() +
                                      sharing::kArchiveExtension)
              : std::filesystem::path(o->output);
      const sharing::ExportSummary s = sharing::export_voice(folder, output);
      std::printf("wrote voice \"%s\" to %s: %zu files, %.1f MiB (%.1f MiB unpacked)\n",
                  s.name.c_str(), output.string().c_str(), s.files,
                  static_cast<double>(s.archive_bytes) / (1024.0 * 1024.0),
                  static_cast<double>(s.bytes) / (1024.0 * 1024.0));
      std::fflush(stdout);
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      exit_code = report_failure("export", e);
    }
  });
}

void register_install(CLI::App& voices, int& exit_code) {
  struct Options {
    std::string source;
    FolderChoice where;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = voices.add_subcommand(
      "install",
      "Install a voice from a .ttsvoice file or a voice folder, checked before it is used (sizes, "
      "paths, checksums, versions; then loaded) into the user's voice folder");
  cmd->add_option("source", o->source, "A .ttsvoice file (tts voices export) or a voice folder")
      ->required();
  add_folder_options(*cmd, o->where, "Install into");
  cmd->add_flag("--force", o->force, "Replace an installed voice of the same name");
  cmd->callback([o, &exit_code] {
    try {
      const std::filesystem::path installed =
          sharing::install_voice(o->source, {o->where.folder(), o->force});
      std::printf("installed voice \"%s\" in %s\n", installed.filename().string().c_str(),
                  installed.string().c_str());
      std::fflush(stdout);
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      exit_code = report_failure("install", e);
    }
  });
}

void register_remove(CLI::App& voices, int& exit_code) {
  struct Options {
    std::string name;
    FolderChoice where;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = voices.add_subcommand(
      "remove",
      "Remove an installed voice from the user's voice folder (a link there is removed, "
      "never what it points at)");
  cmd->add_option("name", o->name, "Voice name")->required();
  add_folder_options(*cmd, o->where, "Remove from");
  cmd->callback([o, &exit_code] {
    try {
      const std::filesystem::path folder = o->where.folder();
      sharing::remove_voice(o->name, folder);
      std::printf("removed voice \"%s\" from %s\n", o->name.c_str(), folder.string().c_str());
      std::fflush(stdout);
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      exit_code = report_failure("remove", e);
    }
  });
}

}  // namespace

void register_voices_sharing(CLI::App& voices, int& exit_code) {
  register_export(voices, exit_code);
  register_install(voices, exit_code);
  register_remove(voices, exit_code);
}

}  // namespace tts::cli
