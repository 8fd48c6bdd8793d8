#include "experiment/surface_slots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/config_section.hpp"
#include "core/error.hpp"

namespace wb {

std::vector<std::optional<TestbedConfig>> testbed_slots(const Config& config,
                                                        const std::optional<TestbedConfig>& testbed,
                                                        int parallel) {
  if (parallel < 1) throw InputError("--parallel: must be at least 1");
  std::vector<std::optional<TestbedConfig>> out;
  if (!testbed) {
    out.assign(static_cast<std::size_t>(parallel), std::nullopt);
    return out;
  }
  ConfigSection root(config.root(), config.file(), "");
  if (!root.has("slots")) {
    if (parallel > 1) {
      throw InputError(
          fmt::format("--parallel {}: {} lists no [[slots]]; a real testbed runs one search at a time "
                      "unless the config gives each slot its own hosts",
                      parallel, config.file()));
    }
    out.push_back(testbed);
    return out;
  }
  std::vector<ConfigSection> slots = root.table_array("slots");
  if (static_cast<std::size_t>(parallel) > slots.size()) {
    throw InputError(
        fmt::format("--parallel {}: {} lists only {} [[slots]]", parallel, config.file(), slots.size()));
  }
  std::set<std::string> used;
  auto check_host = [&](ConfigSection& s, const std::string& key, const std::string& name) {
    bool known = std::any_of(testbed->hosts.begin(), testbed->hosts.end(),
                             [&](const HostConfig& h) { return h.name == name; });
    if (!known) s.fail(key, fmt::format("no [[hosts]] entry is named '{}'", name));
    if (!used.insert(name).second)
      s.fail(key, fmt::format("host '{}' already belongs to another slot", name));
  };
  for (std::size_t i = 0; i < static_cast<std::size_t>(parallel); ++i) {
    ConfigSection& s = slots[i];
    TestbedConfig tb = *testbed;
    tb.sut.host = s.string("sut_host");
    check_host(s, "sut_host", tb.sut.host);
    tb.workload.hosts = s.string_array("generators");
    if (tb.workload.hosts.empty()) s.fail("generators", "name at least one generator host");
    for (const std::string& g : tb.workload.hosts) {
      // A generator may share the SUT's host within its own slot (a loopback testbed), not across slots.
      if (g != tb.sut.host) check_host(s, "generators", g);
    }
    tb.sut.port = s.integer_or("port", tb.sut.port, 1, 65535, "must be a TCP port (1..65535)");
    s.finish();
    out.push_back(std::move(tb));
  }
  return out;
}

}  // namespace wb
