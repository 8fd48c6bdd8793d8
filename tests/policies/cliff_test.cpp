// Searches on a server that saturates with a step [docs/decisions.md#cliffs]: 64 workers of a fixed
// 20 ms answer well below R_sat until they are all busy, then the queue grows through each trial. No
// load answers inside the region, so a search must end with status cliff at the knee, within
// (1 − a)/4 below the capacity, and not spend its loads bisecting the step. And the opposite: a
// smooth server whose one load stalled is no step, and the search measures that load again.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

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

namespace {

// A smooth server, R = 4 ms / (1 − λ/2000), saturated from 2000/s, whose first two trials at 1000/s
// hit a stall (a checkpoint, a page-cache flush): 300 and 240 ms. Deterministic, 2% spread.
class StallingServer final : public TrialRunner {
 public:
  TrialResult run(const Sample&, double rate, double runlength_s, std::uint64_t index) override {
    TrialResult t;
    t.offered_rate = rate;
    t.runlength_s = runlength_s;
    t.cost_s = runlength_s + 1;
    t.sent = static_cast<std::uint64_t>(rate * runlength_s);
    const double wobble = 1 + 0.02 * ((index % 3) - 1.0);
    if (rate >= 2000) {
      t.completed = t.sent * 8 / 10;
      t.mean_ms = 1000;
    } else {
      t.completed = t.sent;
      t.mean_ms = 4 / (1 - rate / 2000) * wobble;
      if (std::abs(rate - 1000) < 0.1 && stalls_ < 2) t.mean_ms = stalls_++ == 0 ? 300 : 240;
    }
    t.achieved_rate = static_cast<double>(t.completed) / runlength_s;
    t.p50_ms = t.p90_ms = t.p95_ms = t.p99_ms = t.mean_ms;
    t.max_ms = 2 * t.mean_ms;
    return t;
  }

 private:
  int stalls_ = 0;
};

}  // namespace

TEST_CASE("a bracket that collapses under one stalled load measures that load again and moves on") {
  const Config c = Config::parse(R"([testbed]
name = "stall"

[factors.clients]
kind = "configuration"
levels = [8]

[peak]
r_sat_ms = 20
width = 0.25
target = "90/80"
start_rate = 125
runlength_s = 5
max_loads = 30
)",
                                 "stall.toml");
  SearchOptions o{c.peak(), c.peak().target};
  StallingServer server;
  auto picker = make_picker("binsearch", o.peak, o.peak.start_rate);
  SearchResult r = run_search(c.sample("clients=8"), o, *picker, server, nullptr, nullptr);
  INFO(r.message << "; loads:" << loads_text(r));
  // The region [15, 25] ms lies between 1467 and 1680/s; before, the search bisected under the
  // stalled 1000/s until its bracket collapsed and ended not-found.
  REQUIRE(r.status == SearchStatus::kFound);
  CHECK(r.peak_rate >= 1467);
  CHECK(r.peak_rate <= 1680);
  int at_1000 = 0;
  for (const auto& l : r.loads) {
    if (std::abs(l.rate - 1000) < 0.1) {
      ++at_1000;
      // The stalled load, then its second measurement at twice the runlength, below.
      CHECK(l.verdict == (at_1000 == 1 ? Verdict::kAbove : Verdict::kBelow));
      CHECK(l.runlength_s == (at_1000 == 1 ? 5 : 10));
    }
  }
  CHECK(at_1000 == 2);
  // The superseded load is no evidence: the interval's top is not 1000/s.
  CHECK(r.peak_high > 1000);
}

namespace {

// A bistable server [docs/decisions.md#bistable]: under 1000/s every trial keeps up (2-3 ms); from
// 1000 to 1300/s a trial falls into a queue it does not leave (300 ms and more) with probability
// rising linearly from 0 to 1, else keeps up; from 1300/s it saturates. No load answers inside a
// [15, 25] ms region, and a load's verdict in the band depends on which trials it drew.
class BistableServer final : public TrialRunner {
 public:
  explicit BistableServer(std::uint64_t seed) : rng_(seed) {}
  TrialResult run(const Sample&, double rate, double runlength_s, std::uint64_t) override {
    TrialResult t;
    t.offered_rate = rate;
    t.runlength_s = runlength_s;
    t.cost_s = runlength_s + 1;
    t.sent = static_cast<std::uint64_t>(rate * runlength_s);
    t.completed = t.sent;
    const double p = std::clamp((rate - kOnset) / (kSaturation - kOnset), 0.0, 1.0);
    if (rate >= kSaturation) {
      t.completed = t.sent * 7 / 10;
      t.mean_ms = 900;
    } else if (std::uniform_real_distribution<double>(0, 1)(rng_) < p) {
      lowest_stall_ = std::min(lowest_stall_, rate);
      t.mean_ms = 300 + 200 * p;
    } else {
      t.mean_ms = 2 + rate / 1000;
    }
    t.achieved_rate = static_cast<double>(t.completed) / runlength_s;
    t.p50_ms = t.p90_ms = t.p95_ms = t.p99_ms = t.mean_ms;
    t.max_ms = 2 * t.mean_ms;
    return t;
  }
  static constexpr double kOnset = 1000, kSaturation = 1300;
  double lowest_stall_ = kSaturation;

 private:
  std::mt19937_64 rng_;
};

}  // namespace

TEST_CASE("a bistable server: the search ends below its band with status bistable or cliff") {
  const Config c = Config::parse(R"([testbed]
name = "bistable"

[factors.workers]
kind = "configuration"
levels = [1]

[peak]
r_sat_ms = 20
width = 0.25
target = "95/90"
start_rate = 100
runlength_s = 5
max_loads = 30
)",
                                 "bistable.toml");
  SearchOptions o{c.peak(), c.peak().target};
  int bistable = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    BistableServer server(seed * 104729);
    auto picker = make_picker("binsearch", o.peak, o.peak.start_rate);
    auto rl = make_runlength_policy(RunlengthKind::kAdaptive);
    SearchResult r = run_search(c.sample("workers=1"), o, *picker, server, nullptr, rl.get());
    INFO("seed " << seed << ": " << to_string(r.status) << ", " << r.message << "; loads:" << loads_text(r));
    // Before, such searches ran out of loads or collapsed their bracket: not-found.
    REQUIRE(has_peak(r.status));
    REQUIRE(r.status != SearchStatus::kFound);
    bistable += static_cast<int>(r.status == SearchStatus::kBistable);
    // λ* is a load that kept up, at or below every stall this search met, and not far below the band.
    CHECK(r.peak_rate <= server.lowest_stall_);
    CHECK(r.peak_rate >= BistableServer::kOnset * 0.75);
    CHECK(r.response.mean < c.peak().region.low_ms());
    CHECK(r.peak_low <= r.peak_rate);
    CHECK(r.peak_high >= r.peak_rate);
    CHECK(r.peak_high < BistableServer::kSaturation);
    // Calm trials above the lowest stall over more than the cliff resolution ((1 − a)/4 = 2.5 %) are
    // a band, never a step.
    double stall_rate = BistableServer::kSaturation, calm_rate = 0;
    for (const auto& l : r.loads) {
      for (const auto& t : l.trials) {
        if (t.mean_ms > 2 * c.peak().region.high_ms()) stall_rate = std::min(stall_rate, l.rate);
        if (t.mean_ms < c.peak().region.low_ms()) calm_rate = std::max(calm_rate, l.rate);
      }
    }
    if (calm_rate > stall_rate * 1.025) CHECK(r.status == SearchStatus::kBistable);
    if (r.status == SearchStatus::kBistable) CHECK(r.peak_high == calm_rate);
  }
  CHECK(bistable > 0);
}
