// What the commands that write several files share about them: the same file named by two output
// options is refused, and an interrupted command leaves no temporary of its outputs behind.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tts::cli {

// For outputs given as (option, path) ("-o", "x.wav"), ("--timings", "x.wav"), the empty paths
// (options not given) left out: a message naming the two options when two of them resolve to the
// same file (x.wav, ./x.wav and a symbolic link to it alike), else nothing.
std::optional<std::string> output_named_twice(
    const std::vector<std::pair<std::string, std::string>>& outputs);

// From here until the process ends, SIGINT and SIGTERM remove the temporaries being written for
// `outputs` (NAME.tmp-PID-N beside each, tts/kernels/atomic_file.h; this process's) and then end
// the process by the same signal, so that its status says it was interrupted. A signal the
// process was started ignoring (SIGINT of a background job) stays ignored. Call it once.
void remove_temporaries_on_signal(std::vector<std::filesystem::path> outputs);

}  // namespace tts::cli
