// The expectation of configs/demo.toml without processes: demands calibrated from a recorded
// refserver stats answer (cpu, disk and the net delay the generator saw beyond refserver), and the
// peak-rate region the model gives around its λ*.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiment/expectation.hpp"
#include "experiment/refserver_stats.hpp"
#include "experiment/surface_fit.hpp"

using namespace wb;

namespace {

const std::string kDemoConfig = std::string(WB_SOURCE_DIR) + "/configs/demo.toml";

// refserver's stats shape (sut/stage_stats.cpp): per op kind a count and per stage the total.
nlohmann::json op_stats(double count, std::map<std::string, double> mean_ms) {
  nlohmann::json stages = nlohmann::json::object();
  for (const char* s : {"thread_queue", "lock", "cpu", "disk_queue", "disk", "lag", "residence"}) {
    const double m = mean_ms.count(s) ? mean_ms[s] : 0.0;
    stages[s] = {{"total_ms", m * count}, {"mean_ms", m}, {"max_ms", m * 3}};
  }
  return {{"count", count}, {"stages", stages}};
}

nlohmann::json recorded_stats() {
  nlohmann::json ops;
  // 600 reads and 300 writes: 0.2 ms CPU, 5 ms disk, 0.5 ms in the disk queue, 0.05 ms lag.
  ops["read"] =
      op_stats(600, {{"cpu", 0.2}, {"disk", 5.0}, {"disk_queue", 0.5}, {"lag", 0.05}, {"residence", 5.75}});
  ops["write"] =
      op_stats(300, {{"cpu", 0.2}, {"disk", 5.0}, {"disk_queue", 0.5}, {"lag", 0.05}, {"residence", 5.75}});
  // 100 metadata requests: CPU only.
  ops["metadata"] = op_stats(100, {{"cpu", 0.2}, {"lag", 0.05}, {"residence", 0.25}});
  ops["noop"] = op_stats(0, {});
  return {{"server", "refserver"}, {"ops", ops}};
}

std::map<std::string, CalibratedDemand> by_center(const std::vector<CalibratedDemand>& v) {
  std::map<std::string, CalibratedDemand> m;
  for (const auto& d : v) m.emplace(d.center, d);
  return m;
}

}  // namespace

TEST_CASE("refserver stats calibrate cpu, disk and the net delay outside refserver") {
  Config config = Config::load(kDemoConfig);
  Sample sample = config.sample("mix=db_tp");
  const QueueNetwork& net = *config.model();

  // The generator saw 5.9 ms on average; refserver's residence averaged 0.9 x 5.75 + 0.1 x 0.25.
  const double residence = 0.9 * 5.75 + 0.1 * 0.25;
  auto m = by_center(demands_from_refserver_stats(recorded_stats(), net, sample, 5.9));
  REQUIRE(m.size() == 3);
  CHECK(m.at("cpu").demand_ms == Approx(0.2));
  CHECK(m.at("disk").demand_ms == Approx(5.0));
  CHECK(m.at("disk").visits.value() == Approx(0.9));
  CHECK(m.at("net").demand_ms == Approx(5.9 - residence));
  CHECK(m.at("net").visits.value() == Approx(1.0));

  // Without the generator's figure there is nothing to subtract from: net keeps its configured
  // demand. A generator mean below refserver's own residence (different requests, a noisy
  // machine) gives no calibration rather than a demand <= 0.
  CHECK(by_center(demands_from_refserver_stats(recorded_stats(), net, sample)).count("net") == 0);
  CHECK(
      by_center(demands_from_refserver_stats(recorded_stats(), net, sample, residence - 0.01)).count("net") ==
      0);
}

TEST_CASE("a calibrated net delay applies to every sample and lowers the expected peak") {
  Config config = Config::load(kDemoConfig);
  Sample at = config.sample("mix=db_tp,threads=8,disks=2");
  auto measured = demands_from_refserver_stats(recorded_stats(), *config.model(), at, 6.5);
  Sample other = config.sample("mix=web,threads=2,disks=4");
  PeakExpectation before = expect_peak(config, other, {});
  PeakExpectation after = expect_peak(config, other, measured);
  // net's demand is a constant: measured under db_tp, it serves mix=web too (cpu as well; disk's
  // depends on the mix).
  CHECK(after.calibrated == std::vector<std::string>{"cpu", "net"});
  CHECK(after.peak_rate < before.peak_rate);
}

TEST_CASE("the expectation cache's key changes with the config text and the calibrations") {
  Config config = Config::load(kDemoConfig);
  const Sample sample = config.sample("mix=db_tp,threads=16,disks=2");
  const std::string key = expectation_inputs_key(config, {});
  CHECK(expectation_inputs_key(Config::load(kDemoConfig), {}) == key);  // the same inputs

  // One demand of the [model] changed: another key.
  std::ifstream in(kDemoConfig);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find("[[model.center]]");
  REQUIRE(at != std::string::npos);
  const std::size_t demand = text.find("service_ms = ", at);
  REQUIRE(demand != std::string::npos);
  text.insert(demand + std::string("service_ms = ").size(), "1");
  CHECK(expectation_inputs_key(Config::parse(text, kDemoConfig), {}) != key);

  CalibratedDemand c{"disk", sample, 4.9, 1.0, "stages", ""};
  const std::string calibrated = expectation_inputs_key(config, {c});
  CHECK(calibrated != key);
  c.demand_ms = 5.0;
  CHECK(expectation_inputs_key(config, {c}) != calibrated);
}

TEST_CASE("the expected peak-rate region brackets λ* where R crosses R_sat times 1 minus and plus s") {
  Config config = Config::load(kDemoConfig);
  const double r_sat = config.peak().r_sat_ms, s = config.peak().region.width;
  for (const char* disks : {"disks=1", "disks=2", "disks=4"}) {
    Sample sample = config.sample(std::string("mix=db_tp,threads=16,") + disks);
    PeakExpectation e = expect_peak(config, sample, {});
    INFO(disks << ": region [" << e.region_low << ", " << e.region_high << "], λ* " << e.peak_rate);
    REQUIRE(e.region_low > 0);
    CHECK(e.region_low < e.peak_rate);
    CHECK(e.peak_rate < e.region_high);
    CHECK(e.region_high < e.saturation_rate);
    CHECK(expect_peak(config, sample, {}, e.region_low).at.response_ms ==
          Approx(r_sat * (1 - s)).epsilon(1e-6));
    CHECK(expect_peak(config, sample, {}, e.region_high).at.response_ms ==
          Approx(r_sat * (1 + s)).epsilon(1e-6));
  }
}
