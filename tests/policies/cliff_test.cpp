// Searches on a server that saturates with a step [docs/decisions.md#cliffs]: 64 workers of a fixed
// 20 ms answer well below R_sat until they are all busy, then the queue grows through each trial. No
// load answers inside the region, so a search must end with status cliff at the knee, within
// (1 − a)/4 below the capacity, and not spend its loads bisecting the step.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "core/config.hpp"
#include "harness/sim/sim_testbed.hpp"
#include "policies/runlength.hpp"
#include "policies/search.hpp"

using namespace wb;

namespace {

const char* kStepServer = R"([testbed]
name = "step"

[factors.workers]
kind = "configuration"
levels = [64]

[peak]
r_sat_ms = 80
width = 0.1
target = "95/90"
start_rate = 200
runlength_s = 20
max_loads = 40

[sim]
warmup_s = 5
overhead_s = 5
seed = 1

[[sim.center]]
name = "workers"
servers = "{workers}"
service_ms = 20
distribution = "deterministic"
)";

// The loads of a search, one line each, for a failure's message.
std::string loads_text(const SearchResult& r) {
  std::string out;
  for (const auto& l : r.loads) {
    out +=
        fmt::format("\n  {:.1f}/s: {} trials, mean {:.2f} [{:.2f}, {:.2f}] ms, {}{}", l.rate, l.trials.size(),
                    l.ci.mean, l.ci.low, l.ci.high, to_string(l.verdict), l.saturated ? " (saturated)" : "");
  }
  return out;
}

}  // namespace

TEST_CASE("a server that saturates with a step: the search ends at the knee with status cliff") {
  const Config c = Config::parse(kStepServer, "step.toml");
  const double capacity = 64 / 0.020;  // 3200/s
  SearchOptions o{c.peak(), c.peak().target};
  Sample s = c.sample("workers=64");
  // Binsearch is the picker that bisects a bracket; linear walks 10/s steps and never gets there.
  for (const char* policy : {"binsearch"}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      INFO(policy << ", seed " << seed);
      sim::SimulatedTestbed tb(*c.sim(), seed * 7919);
      auto picker = make_picker(policy, o.peak, o.peak.start_rate);
      auto rl = make_runlength_policy(RunlengthKind::kAdaptive);
      SearchResult r = run_search(s, o, *picker, tb, nullptr, rl.get());
      INFO(r.message << "; loads:" << loads_text(r));
      REQUIRE(r.status == SearchStatus::kCliff);
      CHECK(r.peak_rate <= capacity * 1.005);
      CHECK(r.peak_rate >= capacity * (1 - 0.025) * 0.99);
      // The knee and the load above it, or, where one rate was judged on both sides, the nearest
      // loads around it: each side within (1 − a)/4.
      CHECK(r.peak_low <= r.peak_rate);
      CHECK(r.peak_high >= r.peak_rate);
      CHECK(r.peak_high > r.peak_low);
      CHECK(r.peak_high <= r.peak_low * 1.05);
      CHECK(r.response.mean < c.peak().region.low_ms());
      CHECK(r.response.low > 0);
      CHECK(static_cast<int>(r.loads.size()) < o.peak.max_loads);
    }
  }
}
