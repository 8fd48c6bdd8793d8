#include "sut/stage_stats.hpp"

#include <algorithm>

#ifndef WB_VERSION
#define WB_VERSION "unknown"
#endif

namespace wb::sut {

const char* stage_name(int stage) noexcept {
  static constexpr const char* kNames[kStageCount] = {"thread_queue", "lock", "cpu",      "disk_queue",
                                                      "disk",         "lag",  "residence"};
  return stage >= 0 && stage < kStageCount ? kNames[stage] : "?";
}

StageStats::StageStats(int disks) : disks_(static_cast<std::size_t>(disks)) {}

void StageStats::record(rpc::Op op, const RequestTimes& t) {
  const auto i = static_cast<std::size_t>(op);
  std::lock_guard lock(mu_);
  if (i >= ops_.size()) return;
  OpTotals& o = ops_[i];
  ++o.count;
  for (int s = 0; s < kStageCount; ++s) {
    o.stages[s].total += t.s[s];
    o.stages[s].max = std::max(o.stages[s].max, t.s[s]);
  }
}

void StageStats::record_disk(int index, double service_s) {
  std::lock_guard lock(mu_);
  DiskTotals& d = disks_.at(static_cast<std::size_t>(index));
  ++d.ops;
  d.busy += service_s;
}

void StageStats::count_noop() {
  std::lock_guard lock(mu_);
  ++ops_[static_cast<std::size_t>(rpc::Op::kNoop)].count;
}

void StageStats::count_bad_request() {
  std::lock_guard lock(mu_);
  ++bad_requests_;
}

void StageStats::count_stats_request() {
  std::lock_guard lock(mu_);
  ++stats_requests_;
}

nlohmann::json StageStats::snapshot() const {
  static constexpr const char* kOpNames[4] = {"noop", "read", "write", "metadata"};
  const Clock::time_point now = Clock::now();
  std::lock_guard lock(mu_);
  const double interval = std::chrono::duration<double>(now - interval_start_).count();
  nlohmann::json j;
  j["server"] = "refserver";
  j["version"] = WB_VERSION;
  j["uptime_s"] = std::chrono::duration<double>(now - start_).count();
  j["interval_s"] = interval;
  nlohmann::json ops = nlohmann::json::object();
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    const OpTotals& o = ops_[i];
    nlohmann::json stages = nlohmann::json::object();
    for (int s = 0; s < kStageCount; ++s) {
      const double total_ms = o.stages[s].total * 1e3;
      stages[stage_name(s)] = {{"total_ms", total_ms},
                               {"mean_ms", o.count ? total_ms / static_cast<double>(o.count) : 0.0},
                               {"max_ms", o.stages[s].max * 1e3}};
    }
    ops[kOpNames[i]] = {{"count", o.count}, {"stages", std::move(stages)}};
  }
  j["ops"] = std::move(ops);
  nlohmann::json disks = nlohmann::json::array();
  for (std::size_t i = 0; i < disks_.size(); ++i) {
    const DiskTotals& d = disks_[i];
    const double busy_ms = d.busy * 1e3;
    disks.push_back({{"index", i},
                     {"ops", d.ops},
                     {"busy_ms", busy_ms},
                     {"mean_service_ms", d.ops ? busy_ms / static_cast<double>(d.ops) : 0.0},
                     {"utilization", interval > 0 ? d.busy / interval : 0.0}});
  }
  j["disks"] = std::move(disks);
  j["bad_requests"] = bad_requests_;
  j["stats_requests"] = stats_requests_;
  return j;
}

void StageStats::reset() {
  std::lock_guard lock(mu_);
  interval_start_ = Clock::now();
  ops_ = {};
  for (DiskTotals& d : disks_) d = {};
  bad_requests_ = 0;
  stats_requests_ = 0;
}

}  // namespace wb::sut
