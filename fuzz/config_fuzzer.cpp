// The config loader on arbitrary text: toml++'s parser, then every section a command validates
// at load time — [testbed], [factors], [peak], [sim] and [model] (queue networks and their
// expressions), the real testbed's [[hosts]], [sut] and [workload] with their command templates,
// [[slots]] and [probing]. Rejections are InputErrors; what is accepted must be usable.
#include <optional>

#include "core/config.hpp"
#include "core/error.hpp"
#include "experiment/surface_slots.hpp"
#include "fuzz/fuzz_support.hpp"
#include "harness/shell_quote.hpp"
#include "harness/testbed_config.hpp"
#include "models/probe_plan.hpp"

namespace {

void check_factors(const wb::Config& c) {
  const wb::Sample def = c.default_sample();
  for (const auto& f : c.factors()) {
    WB_FUZZ_CHECK(!f.levels.empty());
    WB_FUZZ_CHECK(!f.numeric || f.numeric_levels.size() == f.levels.size());
    WB_FUZZ_CHECK(def.has(f.name) && f.find_level(def.value(f.name)).has_value());
  }
  WB_FUZZ_CHECK(c.sample("") == def);
}

void check_peak(const wb::PeakConfig& p) {
  WB_FUZZ_CHECK(p.r_sat_ms > 0 && p.region.sat_ms > 0 && p.region.width > 0 && p.region.width < 1);
  WB_FUZZ_CHECK(p.min_trials >= 2 && p.max_trials >= p.min_trials && p.max_loads >= 1);
  WB_FUZZ_CHECK(p.peak_min_trials >= p.min_trials && p.peak_min_trials <= p.max_trials);
}

// Every center's expressions name only declared factors (or [model] attributes), so they either
// evaluate at the default sample or fail with an Error (a categorical level is not a number).
void check_network(const wb::QueueNetwork& net, const wb::Sample& at) {
  WB_FUZZ_CHECK(!net.centers.empty());
  wb::Sample s = at;
  try {
    s = net.with_attributes(at);
  } catch (const wb::InputError&) {
    return;  // an attribute gives the default level no value: reported when it is used
  }
  for (const auto& center : net.centers) {
    WB_FUZZ_CHECK(center.pool || center.visits > 0);
    for (const wb::Expr* e : {&center.servers, &center.demand_ms}) {
      for (const auto& name : e->factors()) WB_FUZZ_CHECK(s.has(name));
      try {
        (void)e->eval(s);
      } catch (const wb::Error&) {
      }
    }
  }
  try {
    (void)net.resolved(at);
  } catch (const wb::Error&) {
  }
}

// parse_testbed() checked every template against the factors and built-ins, so expanding them
// for the default sample must succeed.
void check_testbed(const wb::Config& c, const wb::TestbedConfig& tb) {
  WB_FUZZ_CHECK(!tb.hosts.empty() && !tb.workload.hosts.empty());
  (void)tb.host(tb.sut.host);
  for (const auto& h : tb.workload.hosts) (void)tb.host(h);
  const auto values = wb::template_values(c, tb, c.default_sample(), {{"refserver", "r"}, {"wbload", "w"}});
  WB_FUZZ_CHECK(!wb::expand_command_template(tb.sut.start, values).empty());
  for (const auto& t : tb.sut.setup) (void)wb::expand_command_template(t, values);
  if (!tb.sut.ready_command.empty()) (void)wb::expand_command_template(tb.sut.ready_command, values);
  (void)wb::expand_command_template(tb.workload.target, values);
  if (!tb.workload.mix.empty()) (void)wb::expand_command_template(tb.workload.mix, values);
  for (const auto& a : tb.workload.args) (void)wb::expand_command_template(a, values);
  try {
    for (int parallel : {1, 2}) {
      for (const auto& slot : wb::testbed_slots(c, tb, parallel)) {
        WB_FUZZ_CHECK(slot.has_value() && slot->sut.port >= 1 && slot->sut.port <= 65535);
      }
    }
  } catch (const wb::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return wb::fuzz::run([&] {
    std::optional<wb::Config> config;
    try {
      config = wb::Config::parse(wb::fuzz::text_of(data, size), "/fuzz/config.toml");
    } catch (const wb::InputError&) {
      return;
    }
    const wb::Config& c = *config;
    check_factors(c);
    check_peak(c.peak());
    if (c.sim()) check_network(c.sim()->network, c.default_sample());
    if (c.model()) check_network(*c.model(), c.default_sample());
    try {
      (void)wb::probe_config(c);
    } catch (const wb::InputError&) {
    }
    if (!wb::has_real_testbed(c)) return;
    std::optional<wb::TestbedConfig> tb;
    try {
      tb = wb::parse_testbed(c);
    } catch (const wb::InputError&) {
      return;
    }
    check_testbed(c, *tb);
  });
}
