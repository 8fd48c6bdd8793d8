#pragma once
// The files commands write for their user (report --html, export --out): checked before any work,
// and written whole or not at all.
#include <string>

namespace wb {

// InputError naming `flag` when `path`'s folder does not exist or `path` is a folder. Commands call
// it before they open the store, so a typo costs nothing and creates nothing.
void check_output_path(const std::string& flag, const std::string& path);

// Writes `text` to a temporary file beside `path` and renames it over `path`: a failed or
// interrupted run never leaves half a file, and no temporary file behind. Error when it cannot.
void write_atomically(const std::string& path, const std::string& text);

}  // namespace wb
