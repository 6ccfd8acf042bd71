// Crash-safe file replacement: write to a temporary beside the target, fsync, rename into place.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>
#include <vector>

namespace tts::kernels {

// Writes `path` atomically (POSIX): the callback writes into a stream backed by a new file
// `<path>.tmp-<pid>-<counter>` in the same folder; that file is flushed, fsync'ed and renamed over
// `path`, then the folder is fsync'ed so the rename itself survives a crash. Readers see either the
// old file or the complete new one, never a mix.
//
// On any failure (temporary cannot be created, the callback throws, the stream goes bad, a write,
// fsync or rename fails) the temporary is removed, a previous file at `path` is left untouched, and
// std::runtime_error is thrown naming `path` and the reason. The new file gets mode 0666 & ~umask;
// the permissions of a replaced file are not carried over.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

// Same, for contents already in memory.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// Whether `name` (a file name, no folder) is a temporary of write_file_atomically: NAME.tmp-PID-N.
bool is_atomic_temporary_name(std::string_view name);

// Removes from `folder` (not its sub-folders) the temporaries that a killed write_file_atomically
// left behind: regular files named NAME.tmp-PID-N whose PID is no running process. A live
// process's (this one's included) may be mid-write and is left alone, and so is every other file.
// Returns the paths removed. Best effort: a folder that cannot be listed removes nothing.
std::vector<std::filesystem::path> remove_stale_temporaries(const std::filesystem::path& folder);

}  // namespace tts::kernels
