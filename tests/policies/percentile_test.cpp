// A peak-rate region on a percentile [003 §3.3, `[peak] percentile`]: every picker steers on, and
// judge_load claims, the trials' percentile against L_sat. On the simulated testbed the searches
// end in that percentile's true region (sim::compute_truth over long runs), which lies well away
// from the mean's, so a search steering on the mean cannot pass.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "core/config.hpp"
#include "core/error.hpp"
#include "harness/sim/truth.hpp"
#include "tests/policies/sim_search.hpp"

using namespace wb;

namespace {

// The text of configs/sim.toml (R_sat = 40 ms) with `lines` added to its [peak] section.
std::string sim_toml_with(const std::string& lines) {
  std::ifstream in(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  const auto at = s.find("\ntarget = \"95/90\"");
  REQUIRE(at != std::string::npos);
  s.insert(at, "\n" + lines);
  return s;
}

// The region moved to the 90th percentile at L_sat = 60 ms: a picker that compared the p90 with
// R_sat would steer to the wrong load.
Config p90_config() { return Config::parse(sim_toml_with("percentile = 0.9\nl_sat_ms = 60"), "p90.toml"); }

}  // namespace

TEST_CASE("a percentile region: searches claim the percentile and end in its true region") {
  const Config c = p90_config();
  REQUIRE(c.peak().region.metric == ResponseMetric::kP90);
  REQUIRE(c.peak().region.sat_ms == 60);
  SearchOptions o{c.peak(), c.peak().target};
  int total = 0, found = 0, inside = 0;
  for (const char* set : {"disks=1,threads=4", "disks=2,threads=16"}) {
    Sample s = c.sample(set);
    const sim::Truth p90 = sim::compute_truth(*c.sim(), s, c.peak().region);
    const sim::Truth mean = sim::compute_truth(*c.sim(), s, PeakRegion::mean(40, c.peak().region.width));
    INFO(set << ": p90 region [" << p90.region_low << ", " << p90.region_high << "], mean region ["
             << mean.region_low << ", " << mean.region_high << "]");
    REQUIRE(p90.region_high < mean.region_low);  // the two regions are apart: the test can fail
    for (const char* policy : {"binsearch", "model-safe", "linear"}) {
      for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        SearchResult r = test::sim_search(c, s, o, policy, RunlengthKind::kAdaptive, seed * 7919);
        ++total;
        if (r.status != SearchStatus::kFound) continue;
        ++found;
        // The claim is on the p90: the mean of the claimed load's trials' p90 values.
        const TestLoad& claimed = r.loads.back();
        double sum = 0;
        for (const auto& t : claimed.trials) sum += t.p90_ms;
        CHECK(r.response.mean == Approx(sum / static_cast<double>(claimed.trials.size())));
        CHECK(r.response.mean >= 60 * (1 - 0.1));  // the equivalence test put it inside [54, 66]
        CHECK(r.response.mean <= 60 * (1 + 0.1));
        inside += r.peak_rate >= p90.region_low && r.peak_rate <= p90.region_high;
      }
    }
  }
  INFO("found " << found << " of " << total << ", " << inside << " inside the true p90 region");
  CHECK(found >= total * 0.9);
  // The claim's confidence is 95% per search: allow a few outside.
  CHECK(inside >= found * 0.85);
}

TEST_CASE("[peak] percentile takes only the percentiles a trial reports") {
  try {
    (void)Config::parse(sim_toml_with("percentile = 0.97\nl_sat_ms = 40"), "p97.toml");
    FAIL("percentile = 0.97 was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("p97.toml:") &&
                             Catch::Contains("peak.percentile: must be 0.5, 0.9, 0.95 or 0.99"));
  }
}
