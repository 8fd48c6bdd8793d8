#include "models/fio_json.hpp"

#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {

using nlohmann::json;

json fio_json_document(const std::string& out) {
  std::size_t at = out.rfind('{', 0) == 0 ? 0 : out.find("\n{");
  if (at == std::string::npos) throw InputError("fio printed no JSON document (no line starting with '{')");
  if (at > 0) ++at;
  std::istringstream in(out.substr(at));
  json j;
  try {
    in >> j;  // one document; fio may print more lines after it
  } catch (const json::exception& e) {
    throw InputError(fmt::format("fio's output is not JSON: {}", e.what()));
  }
  return j;
}

const json& fio_member(const json& j, const char* key, const std::string& where) {
  if (!j.is_object()) throw InputError(fmt::format("fio output {}: not an object", where));
  auto it = j.find(key);
  if (it == j.end()) throw InputError(fmt::format("fio output {}.{}: missing", where, key));
  return *it;
}

}  // namespace wb
