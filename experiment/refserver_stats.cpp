#include "experiment/refserver_stats.hpp"

#include <fmt/format.h>

#include <optional>

#include "core/error.hpp"
#include "models/operational_laws.hpp"

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

std::vector<CalibratedDemand> demands_from_utilization(const nlohmann::json& stats, const QueueNetwork& net,
                                                       const Sample& sample) {
  std::vector<CalibratedDemand> out;
  try {
    const double interval_s = stats.at("interval_s").get<double>();
    if (!(interval_s > 0)) throw Error("refserver stats cover no time (interval_s <= 0)");
    double completed = 0;
    for (const char* kind : {"read", "write", "metadata"}) {
      if (stats.at("ops").contains(kind)) completed += stats.at("ops").at(kind).value("count", 0.0);
    }
    if (completed <= 0) throw Error("refserver stats counted no read, write or metadata request");
    const ServiceCenter* d = net.find("disk");
    if (d == nullptr || d->pool) return out;
    double busy_ms = 0, disk_ops = 0;
    std::size_t disks = 0;
    for (const auto& disk : stats.at("disks")) {
      busy_ms += disk.at("busy_ms").get<double>();
      disk_ops += disk.at("ops").get<double>();
      ++disks;
    }
    if (disk_ops <= 0) return out;
    // Rates over the same interval, in ms: U is dimensionless, X per ms, so D comes out in ms.
    const double t_ms = interval_s * 1000;
    const double u = busy_ms / t_ms, x = completed / t_ms;
    const double per_request_ms = service_demand_law(u, x);
    const double visits = forced_flow_visits(disk_ops / t_ms, x);
    out.push_back(CalibratedDemand{
        "disk", sample, per_request_ms / visits, visits,
        fmt::format("service demand law D = U/X: U = {:.3f} ({} disks busy {:.0f} ms in {:.2f} s), X = "
                    "{:.1f}/s, D = {:.3f} ms per request, {:.3f} disk visits per request",
                    u, disks, busy_ms, interval_s, x * 1000, per_request_ms, visits),
        ""});
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("refserver stats: unexpected shape: ") + e.what());
  }
  return out;
}

}  // namespace wb
