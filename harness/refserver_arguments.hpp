#pragma once
// The bundled refserver started by [sut] start: its arguments, with factor levels substituted,
// checked by refserver's own option parser for every sample the config can name, so that a level
// it cannot run (0 or 1.5 disks, an unknown flag) is an error when the config is loaded, not when
// a trial starts the server.
#include <string>

#include "core/config.hpp"
#include "core/config_section.hpp"
#include "harness/testbed_config.hpp"

namespace wb {

// When the command template `key` of `sut` runs {refserver}, parses the words after it as
// refserver would (sut/server_options.hpp) for every combination of the levels of the factors the
// template names (one factor at a time, the others at their defaults, when there are more than a
// thousand combinations). Throws InputError "FILE:LINE:sut.KEY: refserver refuses its arguments for
// SAMPLE: WHY". `tb` supplies the built-in placeholders ({port}, {sut_address}, ...).
void check_refserver_arguments(ConfigSection& sut, const std::string& key,
                               const std::string& command_template, const Config& config,
                               const TestbedConfig& tb);

}  // namespace wb
