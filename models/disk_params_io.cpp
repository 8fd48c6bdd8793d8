#include "models/disk_params_io.hpp"

#include <cmath>
#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {

namespace {

using nlohmann::json;

constexpr std::pair<const char*, double DiskParams::*> kBandwidths[] = {
    {"seq_read_bps", &DiskParams::seq_read_bps},
    {"seq_write_bps", &DiskParams::seq_write_bps},
    {"rand_read_bps", &DiskParams::rand_read_bps},
    {"rand_write_bps", &DiskParams::rand_write_bps}};

// Reads one key of an object; every error names `source` and the key's path.
class Reader {
 public:
  Reader(const json& j, std::string source, std::string path)
      : j_(j), source_(std::move(source)), path_(std::move(path)) {
    if (!j_.is_object()) fail("", "not an object");
  }

  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    std::string at = path_.empty() ? key : key.empty() ? path_ : path_ + "." + key;
    throw InputError(fmt::format("{}: {}: {}", source_, at.empty() ? "top level" : at, why));
  }
  bool has(const char* key) const { return j_.contains(key); }
  const json& at(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end()) fail(key, "missing");
    return *it;
  }
  Reader child(const json& j, const std::string& key) const {
    return Reader(j, source_, path_.empty() ? key : path_ + "." + key);
  }

  double number(const char* key) const {
    const json& v = at(key);
    if (!v.is_number()) fail(key, fmt::format("{} is not a number", v.dump()));
    return v.get<double>();
  }
  // A finite number > 0 (NaN and infinities cannot come from JSON text, but can from a caller's json).
  double positive(const char* key) const {
    const double v = number(key);
    if (!std::isfinite(v) || !(v > 0)) fail(key, fmt::format("{} is not a finite number > 0", v));
    return v;
  }
  std::uint64_t count(const char* key) const {
    const json& v = at(key);
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
      return static_cast<std::uint64_t>(v.get<std::int64_t>());
    fail(key, fmt::format("{} is not a whole number >= 0", v.dump()));
  }
  std::string text(const char* key) const {
    const json& v = at(key);
    if (!v.is_string()) fail(key, fmt::format("{} is not a string", v.dump()));
    return v.get<std::string>();
  }
  bool flag(const char* key) const {
    const json& v = at(key);
    if (!v.is_boolean()) fail(key, fmt::format("{} is not true or false", v.dump()));
    return v.get<bool>();
  }

 private:
  const json& j_;
  std::string source_;
  std::string path_;
};

nlohmann::ordered_json run_to_json(const FioRunFigures& r) {
  return {{"name", r.name},        {"rw", r.rw},     {"block_size", r.block_size},
          {"bw_bps", r.bw_bps},    {"iops", r.iops}, {"runtime_s", r.runtime_s},
          {"io_bytes", r.io_bytes}};
}

FioRunFigures run_from_json(const Reader& r) {
  return {r.text("name"),   r.text("rw"),          r.count("block_size"), r.number("bw_bps"),
          r.number("iops"), r.number("runtime_s"), r.count("io_bytes")};
}

DiskProvenance provenance_from_json(const Reader& r) {
  DiskProvenance p;
  p.file = r.text("file");
  p.file_size = r.count("file_size");
  p.direct = r.flag("direct");
  const std::uint64_t depth = r.count("iodepth");
  if (depth < 1 || depth > 65536) r.fail("iodepth", fmt::format("{} is not from 1 to 65536", depth));
  p.iodepth = static_cast<int>(depth);
  p.fio_version = r.text("fio_version");
  p.date = r.text("date");
  const json& runs = r.at("runs");
  if (!runs.is_array()) r.fail("runs", "not an array");
  for (std::size_t i = 0; i < runs.size(); ++i)
    p.runs.push_back(run_from_json(r.child(runs[i], fmt::format("runs[{}]", i))));
  return p;
}

}  // namespace

nlohmann::ordered_json disk_params_to_json(const DiskParamsFile& file) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [key, member] : kBandwidths) j[key] = file.params.*member;
  j["random_io_size"] = file.params.random_io_size;
  if (const auto& p = file.provenance) {
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    for (const FioRunFigures& r : p->runs) runs.push_back(run_to_json(r));
    j["provenance"] = {{"file", p->file},       {"file_size", p->file_size},     {"direct", p->direct},
                       {"iodepth", p->iodepth}, {"fio_version", p->fio_version}, {"date", p->date},
                       {"runs", runs}};
  }
  return j;
}

DiskParamsFile disk_params_from_json(const json& j, const std::string& source) {
  const Reader r(j, source, "");
  DiskParamsFile f;
  for (const auto& [key, member] : kBandwidths) f.params.*member = r.positive(key);
  if (r.has("random_io_size")) f.params.random_io_size = r.count("random_io_size");
  // The model's own check, so that a file this reader accepts is one predict_disk accepts.
  try {
    check_disk_params(f.params);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", source, e.what()));
  }
  if (r.has("provenance")) {
    f.provenance = provenance_from_json(r.child(r.at("provenance"), "provenance"));
  }
  return f;
}

DiskParamsFile read_disk_params(const std::string& path) {
  std::ifstream in(path);
  if (!in.is_open()) throw InputError(fmt::format("{}: cannot open the disk parameters", path));
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw InputError(fmt::format("{}: not JSON", path));
  return disk_params_from_json(j, path);
}

}  // namespace wb
