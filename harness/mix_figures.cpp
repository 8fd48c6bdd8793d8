#include "harness/mix_figures.hpp"

#include <string>

#include "core/error.hpp"
#include "harness/shell_quote.hpp"
#include "harness/testbed_config.hpp"
#include "workloads/mix.hpp"

namespace wb {

namespace {

// The factors a template names as {factor}.
std::vector<std::size_t> template_factors(const Config& config, const std::string& text) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < config.factors().size(); ++i)
    if (text.find("{" + config.factors()[i].name + "}") != std::string::npos) out.push_back(i);
  return out;
}

MixFigures mix_figures(const Mix& mix) {
  MixFigures m;
  double total = 0;
  for (const auto& op : mix.ops) {
    total += op.weight;
    if (op.kind == OpKind::kRead || op.kind == OpKind::kGet) m.read += op.weight;
    if (op.kind == OpKind::kWrite || op.kind == OpKind::kPost || op.kind == OpKind::kSet)
      m.write += op.weight;
    m.sequential += op.weight * op.sequential;
    m.mean_size += op.weight * op.size.mean();
  }
  if (total > 0) m.read /= total, m.write /= total, m.sequential /= total, m.mean_size /= total;
  return m;
}

}  // namespace

std::optional<std::pair<std::size_t, std::vector<MixFigures>>> mix_levels(const Config& config) {
  try {
    if (!has_real_testbed(config)) return std::nullopt;
    TestbedConfig tb = parse_testbed(config);
    if (tb.workload.mix.empty()) return std::nullopt;
    std::vector<std::size_t> named = template_factors(config, tb.workload.mix);
    if (named.size() != 1) return std::nullopt;
    const Factor& f = config.factors()[named[0]];
    std::vector<MixFigures> out;
    for (const auto& level : f.levels) {
      Sample s;
      s.set(f.name, level);
      std::vector<std::string> words =
          expand_command_template(tb.workload.mix, template_values(config, tb, s, {}));
      if (words.size() != 1) return std::nullopt;
      out.push_back(mix_figures(load_mix(words[0], parse_protocol(tb.workload.protocol))));
    }
    return std::make_pair(named[0], std::move(out));
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace wb
