// `tts voices export NAME`, `tts voices install FILE|DIR`, `tts voices remove NAME`: a voice as one
// .ttsvoice file (tts/voice_sharing/voice_archive.h, docs/voice-format.md "Sharing a voice"); and
// `tts voices index DIR`, `tts voices available --index FILE|URL`, `tts voices install NAME --index
// FILE|URL`: voices offered by a voices.json index (tts/voice_sharing/voice_index.h).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "tts/engine/voice.h"
#include "tts/voice_sharing/voice_archive.h"
#include "tts/voice_sharing/voice_index.h"

namespace tts::cli {

namespace {

// A refused archive or index, or a voice that does not load, is bad input (3); anything else that
// fails (a fetch included) is a failure (1).
int report_failure(const char* command, const std::exception& e) {
  std::cerr << "tts voices " << command << ": " << e.what() << "\n";
  const bool bad_input = dynamic_cast<const sharing::ArchiveError*>(&e) != nullptr ||
                         dynamic_cast<const sharing::IndexError*>(&e) != nullptr ||
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
    std::string index;
    FolderChoice where;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = voices.add_subcommand(
      "install",
      "Install a voice from a .ttsvoice file, a voice folder, or by name from a voices.json index "
      "(--index), checked before it is used (sizes, paths, checksums, versions; then loaded) into "
      "the user's voice folder");
  cmd->add_option("source", o->source,
                  "A .ttsvoice file (tts voices export) or a voice folder; with --index, the name "
                  "of a voice the index offers")
      ->required();
  cmd->add_option("--index", o->index,
                  "A voices.json (tts voices index), a file or an http(s) URL: the archive it "
                  "lists for the voice is fetched and its size and SHA-256 compared with the "
                  "index's first");
  add_folder_options(*cmd, o->where, "Install into");
  cmd->add_flag("--force", o->force, "Replace an installed voice of the same name");
  cmd->callback([o, &exit_code] {
    try {
      const sharing::InstallOptions options{o->where.folder(), o->force};
      const std::filesystem::path installed =
          o->index.empty() ? sharing::install_voice(o->source, options)
                           : sharing::install_from_index(o->source, o->index, options);
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

void register_index(CLI::App& voices, int& exit_code) {
  struct Options {
    std::string folder;
    std::string output;
    std::string base_url;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = voices.add_subcommand(
      "index",
      "Write a voices.json index of the .ttsvoice files in a folder (each voice's name, "
      "languages, speaker, licence, size, SHA-256 and URL) for `tts voices install NAME --index`");
  cmd->add_option("folder", o->folder, "Folder of .ttsvoice files (tts voices export)")->required();
  cmd->add_option("-o,--output", o->output, "Index to write (default: FOLDER/voices.json)");
  cmd->add_option("--base-url", o->base_url,
                  "URL the archives will be served from (default: relative to the index, which "
                  "is then served from the archives' folder)");
  cmd->callback([o, &exit_code] {
    try {
      const std::filesystem::path output = o->output.empty()
                                               ? std::filesystem::path(o->folder) / "voices.json"
                                               : std::filesystem::path(o->output);
      const sharing::VoiceIndex index = sharing::index_archives(o->folder, o->base_url);
      const std::filesystem::path temporary = output.string() + ".writing";
      {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << sharing::index_json(index);
        if (!out.flush()) throw std::runtime_error(temporary.string() + ": cannot write");
      }
      std::filesystem::rename(temporary, output);
      std::printf("wrote %s: %zu voice%s\n", output.string().c_str(), index.voices.size(),
                  index.voices.size() == 1 ? "" : "s");
      std::fflush(stdout);
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      exit_code = report_failure("index", e);
    }
  });
}

void register_available(CLI::App& voices, int& exit_code) {
  auto index = std::make_shared<std::string>();
  CLI::App* cmd = voices.add_subcommand(
      "available", "List the voices a voices.json index offers (tts voices install NAME --index)");
  cmd->add_option("--index", *index, "A voices.json, a file or an http(s) URL")->required();
  cmd->callback([index, &exit_code] {
    try {
      const sharing::VoiceIndex offered = sharing::read_index(*index);
      for (const sharing::IndexedVoice& v : offered.voices) {
        std::string languages;
        for (const std::string& tag : v.languages)
          languages += (languages.empty() ? "" : ",") + tag;
        std::string who = v.speaker;
        if (!v.sex.empty()) who += (who.empty() ? "" : ", ") + v.sex;
        std::printf("%-20s %-16s %8.1f MiB  %s%s%s\n", v.name.c_str(), languages.c_str(),
                    static_cast<double>(v.bytes) / (1024.0 * 1024.0), who.c_str(),
                    who.empty() ? "" : "; ", v.licence.c_str());
      }
      std::fflush(stdout);
      exit_code = kExitOk;
    } catch (const std::exception& e) {
      exit_code = report_failure("available", e);
    }
  });
}

}  // namespace

void register_voices_sharing(CLI::App& voices, int& exit_code) {
  register_export(voices, exit_code);
  register_install(voices, exit_code);
  register_remove(voices, exit_code);
  register_index(voices, exit_code);
  register_available(voices, exit_code);
}

}  // namespace tts::cli
