// The `--device` and `--precision` options of every command that computes (say, train, bench),
// read straight into the one device type (tts/kernels/device.h) through its table of names.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "tts/kernels/device.h"

namespace tts::cli {

CLI::Option* add_device_option(CLI::App& cmd, kernels::Device& device, const std::string& help);

// --device and --precision.
void add_device_choice_options(CLI::App& cmd, kernels::DeviceChoice& choice,
                               const std::string& device_help);

}  // namespace tts::cli
