#pragma once
// Reading fio's --output-format=json(+) output: shared by the fio generator adapter
// (harness/generator_fio.cpp) and the disk calibration (models/disk_calibration.cpp).
#include <string>

#include <nlohmann/json.hpp>

namespace wb {

// The JSON document in fio's stdout, after any "note: ..." lines fio prints before it when it
// adjusts an option (e.g. iodepth capped by a sync engine). Throws InputError if there is none.
nlohmann::json fio_json_document(const std::string& out);

// j[key]; throws InputError naming "fio output <where>.<key>" if j is no object or lacks the key.
const nlohmann::json& fio_member(const nlohmann::json& j, const char* key, const std::string& where);

}  // namespace wb
