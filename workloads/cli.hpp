#pragma once
// The wbload command line: parses arguments into LoadOptions, runs the load and prints the result
// (text, or one JSON object with --json). Exit codes (core/exit_status.hpp): 0 done, 1 the run could
// not be carried out (e.g. unresolvable host), 2 invalid arguments or mix file (one line naming it).
#include <string>

namespace wb {

// The line `wbload --version` prints: program version, histogram encoding and rpc protocol, so
// the controller can check that an uploaded copy matches what it expects.
std::string wbload_version();

int wbload_main(int argc, char** argv);

}  // namespace wb
