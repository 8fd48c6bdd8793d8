#pragma once
// The bundled refserver started by [sut] start: its arguments, with factor levels substituted, checked
// by refserver's own option parser for every sample the config can name, so that a level it cannot run
// (0 or 1.5 disks, an unknown flag) fails when the config is loaded, not when a trial starts.
#include <string>

#include "core/config.hpp"
#include "core/config_section.hpp"
#include "harness/testbed_config.hpp"

namespace wb {

// When template `key` of `sut` runs {refserver}, parses the words after it as refserver would for every
// combination of the levels it names (one factor at a time past a thousand combinations); `tb` supplies
// the built-in placeholders. InputError "FILE:LINE:sut.KEY: refserver refuses its arguments for SAMPLE: WHY".
void check_refserver_arguments(ConfigSection& sut, const std::string& key,
                               const std::string& command_template, const Config& config,
                               const TestbedConfig& tb);

}  // namespace wb
