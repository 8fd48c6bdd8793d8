// Calibration by the service demand law D = U/X from a recorded refserver stats answer, without
// processes: the disks' busy time and the completed requests over the stats interval give the
// disk's demand per request, and the forced flow law its visits [000 §4.1.1].
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiment/expectation.hpp"
#include "experiment/refserver_stats.hpp"

using namespace wb;

namespace {

const std::string kDemoConfig = std::string(WB_SOURCE_DIR) + "/configs/demo.toml";

nlohmann::json op(double count, double disk_mean_ms) {
  nlohmann::json stages = nlohmann::json::object();
  for (const char* s : {"thread_queue", "lock", "cpu", "disk_queue", "disk", "lag", "residence"}) {
    double mean = std::string(s) == "disk" ? disk_mean_ms : std::string(s) == "cpu" ? 0.2 : 0.0;
    stages[s] = {{"total_ms", mean * count}, {"mean_ms", mean}, {"max_ms", mean * 3}};
  }
  return {{"count", count}, {"stages", stages}};
}

// Ten seconds of refserver: 600 reads and 300 writes of 5 ms on the disk, 100 metadata requests;
// the two disks served 540 and 360 of the 900 operations and were busy 2700 and 1800 ms.
nlohmann::json recorded_stats() {
  nlohmann::json ops{{"read", op(600, 5.0)}, {"write", op(300, 5.0)}, {"metadata", op(100, 0.0)}};
  nlohmann::json disks = nlohmann::json::array(
      {{{"index", 0}, {"ops", 540}, {"busy_ms", 2700.0}, {"mean_service_ms", 5.0}, {"utilization", 0.27}},
       {{"index", 1}, {"ops", 360}, {"busy_ms", 1800.0}, {"mean_service_ms", 5.0}, {"utilization", 0.18}}});
  return {{"server", "refserver"}, {"interval_s", 10.0}, {"ops", ops}, {"disks", disks}};
}

}  // namespace

TEST_CASE("D = U/X from refserver's disk busy time: demand per request, visits and demand per visit") {
  Config config = Config::load(kDemoConfig);
  Sample sample = config.sample("mix=specsfs97");
  const QueueNetwork& net = *config.model();

  auto m = demands_from_utilization(recorded_stats(), net, sample);
  REQUIRE(m.size() == 1);  // the disk only: refserver observes no utilization of cpu or net
  CHECK(m[0].center == "disk");
  // U = 4500 ms / 10 s = 0.45 (over two disks), X = 1000 / 10 s = 100/s: D = 4.5 ms per request;
  // V = (900 / 10 s) / (100/s) = 0.9; per visit 4.5 / 0.9 = 5 ms.
  CHECK(m[0].visits.value() == Approx(0.9));
  CHECK(m[0].demand_ms == Approx(5.0));
  CHECK(m[0].source.find("D = U/X") != std::string::npos);
  CHECK(m[0].source.find("U = 0.450") != std::string::npos);
  CHECK(m[0].source.find("X = 100.0/s") != std::string::npos);

  // The per-stage path reads the same disk time from the requests' side: on consistent stats the
  // two methods agree.
  for (const auto& s : demands_from_refserver_stats(recorded_stats(), net, sample)) {
    if (s.center != "disk") continue;
    CHECK(s.demand_ms == Approx(m[0].demand_ms));
    CHECK(s.visits.value() == Approx(m[0].visits.value()));
  }

  // Where the law is used, applies: the calibrated demand replaces the configured one.
  EffectiveModel eff = effective_model(config, sample, m);
  CHECK(eff.calibrated == std::vector<std::string>{"disk"});
}

TEST_CASE("D = U/X calibration refuses stats that cannot give a demand") {
  Config config = Config::load(kDemoConfig);
  Sample sample = config.sample("mix=db_tp");
  const QueueNetwork& net = *config.model();

  nlohmann::json no_time = recorded_stats();
  no_time["interval_s"] = 0.0;
  CHECK_THROWS_AS(demands_from_utilization(no_time, net, sample), Error);

  nlohmann::json nothing_done = recorded_stats();
  for (auto& [kind, o] : nothing_done["ops"].items()) o["count"] = 0;
  CHECK_THROWS_AS(demands_from_utilization(nothing_done, net, sample), Error);

  nlohmann::json old_server = recorded_stats();
  old_server.erase("disks");
  CHECK_THROWS_WITH(demands_from_utilization(old_server, net, sample), Catch::Contains("unexpected shape"));

  // Idle disks (a CPU-only mix): no disk demand to derive, and no error.
  nlohmann::json idle = recorded_stats();
  for (auto& d : idle["disks"]) {
    d["ops"] = 0;
    d["busy_ms"] = 0.0;
  }
  CHECK(demands_from_utilization(idle, net, sample).empty());
}
