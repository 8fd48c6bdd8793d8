// The probe loop on the real refserver [000 §3.3], acceptance on real processes: refserver runs with the
// fault flag --slow-disk 0:1.5 (its first disk is 1.5 times slower), which the expectation
// ([model]: a pool of {threads} workers, a CPU delay and {disks} FCFS disks of 2 ms) does not
// know. With one disk every operation goes to the slow disk and λ* falls to about 0.6 of the
// expectation; with four, the slow disk is one of four and λ* stays within tolerance. map-surface
// through the real workbench binary, refserver and wbload flags the disks = 1 samples, ranks
// disks first and plans probes; `agent --once` runs them; whatif at the disks = 1 sample nobody
// measured is then within 15% of the λ* that `workbench peak` measures there, the bare
// expectation is not.
//
// Bounded: 1 s trials at hundreds of requests/s (2 ms disks, R_sat 8 ms), a coarse target
// (90/70), four design points, two probes and one check search.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/support/store_rows.hpp"
#include "tests/support/workbench_cli.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using wb::test::query_rows;

// Every request reads: one CPU stage, one disk operation (no sequential factor, no metadata), so
// [model] needs no workload attributes.
const char* const kMix = R"(name = "reads"
protocol = "rpc"
description = "small random reads: one CPU stage and one disk operation per request"

[[op]]
kind = "read"
weight = 1
sequential = 0.0
size = 512
)";

// {PORT} is replaced by a free port. [model] states refserver as started here, without the
// fault. [probing]: a mismatch is off by more than 20%, not the default 15%, because this shared
// machine adds latency the model does not have (loopback, late wake-ups): with four disks, where
// the slow one is one of four, refserver measured 6-14% below the expectation, and a 15%
// tolerance flagged some of them. (The tolerance is also Z-CART's: much wider, and the one-disk
// ratios, about 0.5-0.7 against 0.8-0.95, no longer fall outside it, so the tree does not split.)
// Probes stay few: only the best-ranked attribute, one level either side. The target is coarse
// (90/70) so that a search takes 10-50 one-second trials. The band is R_sat(1 ± 0.1), the same as
// the truth's below, narrow enough that a claim's own place in it cannot exceed the 15% the check
// allows: with ± 0.2 the one-disk design searches claimed 200/s where the truth search claimed
// 229-239/s, and Z-CART, which learns from them, was 13-17% under it.
const char* const kConfig = R"([testbed]
name = "refserver-fault"

[factors.threads]
kind = "configuration"
levels = [2, 3, 4]
default = 2

[factors.disks]
kind = "configuration"
levels = [1, 2, 4]
default = 2

[peak]
r_sat_ms = 8
width = 0.1
policy = "model-safe"
target = "90/70"
start_rate = 100
runlength_s = 1
max_trials = 12
max_loads = 12

[[hosts]]
name = "local"

[sut]
host = "local"
start = "{refserver} --port {port} --bind 127.0.0.1 --threads {threads} --disks {disks} --cpu-ms 0.1 --cpu-mode sleep --cpu-dist deterministic --disk-ms 2 --disk-dist lognormal --disk-cv 0.5 --slow-disk 0:1.5"
ready = "line"
port = {PORT}
restart = "per-sample"

[workload]
hosts = ["local"]
protocol = "rpc"
target = "127.0.0.1:{port}"
mix = "{config_dir}/reads.toml"
connections = 32
arrivals = "poisson"
warmup_s = 0.2
timeout_s = 2

[probing]
tolerance = 0.2
top_attributes = 1
radius = 1
min_leaf = 2

[[model.center]]
name = "workers"
kind = "pool"
servers = "{threads}"

[[model.center]]
name = "cpu"
discipline = "delay"
service_ms = 0.1
distribution = "deterministic"
within = "workers"

[[model.center]]
name = "disk"
servers = "{disks}"
service_ms = 2
distribution = "lognormal"
cv = 0.5
within = "workers"
)";

// The Z-CART attributes of kConfig (experiment/zcart_attributes.hpp), which every mismatch ranks:
// its factors and the derived metrics of its [model] (its mix path names no factor: no mix
// attributes).
const std::vector<std::string> kAttributes{
    "disks",           "threads",          "expected_peak",      "bottleneck",
    "bottleneck_util", "workers_per_disk", "workers_lambda_max", "disk_lambda_max"};

// A mismatch's ranking as name -> gain.
std::map<std::string, double> gains(const json& attrs) {
  std::map<std::string, double> out;
  for (const auto& a : attrs) out[a["name"].get<std::string>()] = a["gain"].get<double>();
  return out;
}

fs::path fault_config(const fs::path& dir) {
  std::ofstream(dir / "reads.toml") << kMix;
  std::string text = kConfig;
  const std::size_t at = text.find("{PORT}");
  REQUIRE(at != std::string::npos);
  text.replace(at, 6, std::to_string(wb::test::free_port()));
  fs::path p = dir / "refserver-fault.toml";
  std::ofstream(p) << text;
  // The same testbed and store with more trials per load, for the search that measures the truth
  // whatif is compared with at target 90/80 (90/90 did not finish in 56 trials here).
  const std::size_t m = text.find("max_trials = 12");
  REQUIRE(m != std::string::npos);
  text.replace(m, 15, "max_trials = 30");
  std::ofstream(dir / "refserver-fault-narrow.toml") << text;
  return p;
}

json run_json(const std::vector<std::string>& args, std::chrono::milliseconds timeout = 60s) {
  auto r = wb::test::run_workbench(args, timeout);
  INFO("args: " << args[0] << " " << (args.size() > 1 ? args[1] : "") << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

bool in_fault_region(const std::string& sample_key) {
  return sample_key.find("disks=1,") != std::string::npos;
}

}  // namespace

TEST_CASE("refserver with a slow disk: map-surface flags one disk, agent probes, whatif learns it") {
  const auto t0 = std::chrono::steady_clock::now();
  fs::path dir = fs::temp_directory_path() / ("wb_probes_refserver_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path config = fault_config(dir);
  const std::string store = (dir / "w.db").string();
  const std::vector<std::string> on{"--config", config.string(), "--store", store};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), on.begin(), on.end());
    return args;
  };

  // The four corners of the grid (a D-optimal design for the linear model): two of them with one
  // disk.
  auto surface = wb::test::run_workbench(
      with({"map-surface", "--factors", "threads,disks", "--model", "linear", "--points", "4", "--json"}),
      420s);
  INFO("map-surface stderr: " << surface.err);
  // A four-disk search may end not-found (below): the surface is then incomplete, exit 1, and
  // says which; nothing else may be missing.
  REQUIRE((surface.exit_code == 0 || surface.exit_code == 1));
  if (surface.exit_code == 1) {
    const json report = json::parse(surface.out);
    REQUIRE(report["incomplete"] == true);
    for (const auto& m : report["missing"]) CHECK(m["sample"]["disks"] == 4);
  }
  CHECK(surface.err.find("mismatch: ") != std::string::npos);

  // Every search map-surface made with one disk is a mismatch far below the expectation, and
  // there is no other: with four disks the slow one costs less than the tolerance. (A four-disk
  // search may end not-found: at ~1700/s the 1 s trials on this machine are noisy.)
  auto searches = query_rows(store,
                             "SELECT s.sample, s.status, COUNT(m.id), MAX(m.ratio) FROM searches s LEFT JOIN "
                             "mismatches m ON m.search_id = s.id GROUP BY s.id");
  REQUIRE(searches.size() == 4);
  // Every load of those searches, for a failure's message: a one-disk search that ends not-found
  // shows how its bracket collapsed.
  std::string loads_seen;
  for (const auto& l : query_rows(store,
                                  "SELECT s.sample, l.rate, l.trials, l.runlength_s, l.mean_ms, l.ci_low_ms, "
                                  "l.ci_high_ms, l.saturated, l.verdict FROM loads l JOIN searches s ON "
                                  "s.id = l.search_id ORDER BY l.search_id, l.load_index")) {
    loads_seen += "\n  " + l[0] + " " + l[1] + "/s: " + l[2] + " x " + l[3] + " s, mean " + l[4] + " ms [" +
                  l[5] + ", " + l[6] + "]" + (l[7] == "1" ? " saturated" : "") + " " + l[8];
  }
  INFO("loads:" << loads_seen);
  int in_region = 0;
  for (const auto& s : searches) {
    INFO(s[0] << " " << s[1] << " mismatches " << s[2] << " ratio " << s[3]);
    if (in_fault_region(s[0])) {
      CHECK(s[1] == "found");
      ++in_region;
      CHECK(s[2] == "1");
      if (s[2] == "1") CHECK(std::stod(s[3]) < 0.75);
    } else {
      CHECK(s[2] == "0");
    }
  }
  CHECK(in_region == 2);
  // Disks rank first at every mismatch. map-surface measures the one-disk samples first, so their
  // mismatches are ranked before any search agrees with the expectation: every gain is 0 then
  // (the strict ranking is checked below, on the last mismatch). The ranking holds every Z-CART
  // attribute: the factors, then the expectation model's derived metrics.
  auto mismatches = query_rows(store, "SELECT sample, attributes_json FROM mismatches");
  REQUIRE_FALSE(mismatches.empty());
  for (const auto& m : mismatches) {
    INFO(m[0] << " " << m[1]);
    json attrs = json::parse(m[1]);
    REQUIRE(gains(attrs).size() == kAttributes.size());
    for (const auto& name : kAttributes) CHECK(gains(attrs).count(name) == 1);
    CHECK(attrs[0]["name"] == "disks");
    for (const auto& a : attrs) CHECK(attrs[0]["gain"].get<double>() >= a["gain"].get<double>());
  }

  // Probes vary disks (the attribute ranked first) one level up from each mismatch point.
  json probes = run_json(with({"probe", "list", "--json"}));
  REQUIRE(probes.is_array());
  REQUIRE_FALSE(probes.empty());
  for (const auto& p : probes) {
    INFO(p.dump());
    CHECK(p["attribute"] == "disks");
    CHECK(p["status"] == "planned");
    CHECK(p["sample"]["disks"] == 2);
  }

  const std::string before = query_rows(store, "SELECT COALESCE(MAX(id), 0) FROM searches").at(0).at(0);
  json agent = run_json(with({"agent", "--once", "--json"}), std::chrono::seconds(150 * (probes.size() + 2)));
  // The planned probes, then any a refit planned to bracket a split (priority 0): only threads has
  // a level between two measured ones (3, between 2 and 4); disks' sides, 1 and 2, have none.
  const std::size_t bracketing =
      std::stoul(query_rows(store, "SELECT COUNT(*) FROM probes WHERE priority = 0").at(0).at(0));
  CHECK(agent["ran"] == probes.size() + bracketing);
  auto done = query_rows(store, "SELECT status, search_id, sample, priority FROM probes");
  REQUIRE(done.size() == probes.size() + bracketing);
  for (const auto& p : done) {
    CHECK(p[0] == "done");
    CHECK_FALSE(p[1].empty());
    // Probes' own mismatches plan no probes around themselves: the rest bracket a split.
    if (std::stod(p[3]) == 0) CHECK(p[2].find("threads=3") != std::string::npos);
  }
  CHECK(query_rows(store, "SELECT COUNT(*) FROM searches WHERE id > " + before)[0][0] ==
        std::to_string(probes.size() + bracketing));

  auto shown = wb::test::run_workbench(with({"model", "show"}), 60s);
  REQUIRE(shown.exit_code == 0);
  INFO("model show: " << shown.out);
  CHECK(shown.out.find("Z-CART correction") != std::string::npos);
  // Z-CART splits one disk off from more disks.
  CHECK((shown.out.find("disks <= 1") != std::string::npos ||
         shown.out.find("disks > 1") != std::string::npos));

  // The two-disk probes sit at the edge of the tolerance: one disk of two 1.5 times slower puts
  // their λ* 14-20% under the expectation (0.80 and 0.86 of it in one run), against a 1/1.2 cut.
  // Each lands on either side, and which attribute explains the mismatches best follows. When the
  // probe with four threads is a mismatch and the one with two is not, the expectation's
  // bottleneck (the disk with one disk, and with two disks and four threads; the worker pool
  // elsewhere) separates the mismatches exactly and disks cannot; otherwise disks separates them
  // at least as well as any attribute, and is first by schema order on a tie.
  auto two_disk_mismatch = [&](const std::string& sample) -> std::optional<bool> {
    const std::string sql =
        "SELECT COUNT(m.id) FROM searches s LEFT JOIN mismatches m ON m.search_id = s.id "
        "WHERE s.status = 'found' AND s.sample = '" +
        sample + "' GROUP BY s.id";
    auto rows = query_rows(store, sql);
    if (rows.size() != 1) return std::nullopt;
    return rows[0][0] != "0";
  };
  const auto two_threads = two_disk_mismatch("disks=2,threads=2");
  const auto four_threads = two_disk_mismatch("disks=2,threads=4");
  const bool bottleneck_explains = two_threads.has_value() && !*two_threads && four_threads.value_or(false);
  auto class_text = [](const std::optional<bool>& m) {
    return m ? (*m ? "mismatch" : "within") : "not found";
  };
  INFO("two-disk probes: threads=2 " << class_text(two_threads) << ", threads=4 "
                                     << class_text(four_threads));

  // The one-disk sample nobody measured: Z-CART within 15% of the λ* peak then measures there,
  // the bare expectation not.
  int checked = 0;
  for (int threads : {3, 2, 4}) {
    const std::string set = "disks=1,threads=" + std::to_string(threads);
    if (!query_rows(store, "SELECT 1 FROM searches WHERE sample = '" + set + "'").empty()) continue;
    json w = run_json(with({"whatif", "--set", set, "--json"}));
    std::map<std::string, double> by_source;
    for (const auto& a : w["answers"]) by_source[a["source"]] = a["value"].get<double>();
    json truth = run_json({"peak", "--config", (dir / "refserver-fault-narrow.toml").string(), "--store",
                           store, "--set", set, "--target", "90/80", "--json"},
                          240s);
    REQUIRE(truth["status"] == "found");
    const double t = truth["peak_rate"].get<double>();
    // peak records this search as a mismatch too, ranked on every search so far: with the
    // four-disk and two-disk searches known, disks (or the bottleneck, above) explains the
    // mismatches strictly better than threads.
    auto ranked = query_rows(store, "SELECT attributes_json, ratio FROM mismatches WHERE search_id = " +
                                        std::to_string(truth["search_id"].get<std::int64_t>()));
    REQUIRE(ranked.size() == 1);
    json attrs = json::parse(ranked[0][0]);
    INFO(ranked[0][0]);
    REQUIRE(gains(attrs).size() == kAttributes.size());
    if (bottleneck_explains) {
      CHECK(attrs[0]["name"] == "bottleneck");
      CHECK(gains(attrs).at("bottleneck") > gains(attrs).at("disks"));
    } else {
      CHECK(attrs[0]["name"] == "disks");
    }
    CHECK(gains(attrs).at("disks") > gains(attrs).at("threads"));
    CHECK(std::stod(ranked[0][1]) < 0.75);
    WARN(set << ": measured λ* " << t << ", whatif zcart " << by_source["zcart"] << ", expectation "
             << by_source["expectation"]);
    CHECK(std::abs(by_source.at("zcart") - t) <= 0.15 * t);
    CHECK(std::abs(by_source.at("expectation") - t) > 0.15 * t);
    ++checked;
  }
  CHECK(checked == 1);
  WARN("wall time " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s");
  fs::remove_all(dir);
}
