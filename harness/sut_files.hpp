#pragma once
// The [[sut.files]] of a testbed (harness/testbed_config.hpp SutFile), written on the SUT's host
// before each start so that the port and factor values reach every file the server reads.
#include <map>
#include <string>

#include "harness/executor.hpp"
#include "harness/testbed_config.hpp"

namespace wb {

// Writes `file`, filled in with `values`, on the executor's host (`host` names it in errors):
// through a local scratch file and the executor's atomic upload, after creating its folder.
// Throws Error when the folder cannot be made or the upload fails.
void write_sut_file(Executor& executor, const std::string& host, const SutFile& file,
                    const std::map<std::string, std::string>& values);

}  // namespace wb
