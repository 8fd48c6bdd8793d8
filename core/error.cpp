#include "core/error.hpp"

#include <cstring>

namespace wb {

void throw_errno(const std::string& what, int err) { throw Error(what + ": " + std::strerror(err)); }

}  // namespace wb
