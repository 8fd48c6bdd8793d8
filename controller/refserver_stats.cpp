#include "controller/refserver_stats.hpp"

#include <fmt/format.h>

#include <optional>

#include "core/error.hpp"

namespace wb {

namespace {

struct StageSum {
  double total_ms = 0;
  double count = 0;
};

StageSum sum_stage(const nlohmann::json& ops, std::initializer_list<const char*> kinds, const char* stage) {
  StageSum s;
  for (const char* kind : kinds) {
    if (!ops.contains(kind)) continue;
    const auto& op = ops.at(kind);
    double count = op.value("count", 0.0);
    if (count <= 0) continue;
    s.count += count;
    s.total_ms += op.at("stages").at(stage).at("total_ms").get<double>();
  }
  return s;
}

}  // namespace

std::vector<CalibratedDemand> demands_from_refserver_stats(const nlohmann::json& stats,
                                                           const QueueNetwork& net, const Sample& sample,
                                                           std::optional<double> end_to_end_ms) {
  std::vector<CalibratedDemand> out;
  try {
    const auto& ops = stats.at("ops");
    StageSum cpu = sum_stage(ops, {"read", "write", "metadata"}, "cpu");
    StageSum disk = sum_stage(ops, {"read", "write"}, "disk");
    if (cpu.count <= 0) throw Error("refserver stats counted no read, write or metadata request");
    const ServiceCenter* c = net.find("cpu");
    if (c != nullptr && !c->pool && cpu.total_ms > 0) {
      out.push_back(
          CalibratedDemand{"cpu", sample, cpu.total_ms / cpu.count, 1.0,
                           fmt::format("refserver stats: cpu stage over {:.0f} requests", cpu.count), ""});
    }
    const ServiceCenter* d = net.find("disk");
    if (d != nullptr && !d->pool && disk.count > 0) {
      out.push_back(CalibratedDemand{
          "disk", sample, disk.total_ms / disk.count, disk.count / cpu.count,
          fmt::format("refserver stats: disk stage over {:.0f} of {:.0f} requests", disk.count, cpu.count),
          ""});
    }
    const ServiceCenter* n = net.find("net");
    if (n != nullptr && !n->pool && n->within.empty() && n->discipline == Discipline::kDelay &&
        end_to_end_ms) {
      StageSum residence = sum_stage(ops, {"read", "write", "metadata"}, "residence");
      const double outside_ms =
          residence.count > 0 ? *end_to_end_ms - residence.total_ms / residence.count : 0.0;
      if (outside_ms > 0) {
        out.push_back(CalibratedDemand{
            "net", sample, outside_ms, 1.0,
            fmt::format("mean response {:.3f} ms at the generator - refserver's residence {:.3f} ms",
                        *end_to_end_ms, residence.total_ms / residence.count),
            ""});
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("refserver stats: unexpected shape: ") + e.what());
  }
  return out;
}

}  // namespace wb
