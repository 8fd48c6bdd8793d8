#pragma once
// Helpers shared by the store's implementation files; not part of its API.
#include <string>

#include "core/sample.hpp"

namespace wb::store {

// A sample as the store keeps it: a JSON object of factor name -> level text.
Sample sample_from_json(const std::string& text);

}  // namespace wb::store
