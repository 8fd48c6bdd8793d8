#include "experiment/zcart_factor_splits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/sample.hpp"

namespace wb {
namespace {

struct GridSample {
  std::vector<std::size_t> level;  // per factor, the index of its level
  std::vector<double> values;      // the encoded attributes
};

std::vector<GridSample> level_grid(const ZCartAttributes& attributes, std::size_t max_samples) {
  const auto& factors = attributes.config().factors();
  std::size_t total = 1;
  for (const Factor& f : factors) {
    if (f.levels.empty()) return {};
    total *= f.levels.size();
    if (total > max_samples) return {};
  }
  std::vector<GridSample> out;
  for (std::size_t n = 0; n < total; ++n) {
    GridSample g;
    Sample s;
    std::size_t rest = n;
    for (const Factor& f : factors) {
      g.level.push_back(rest % f.levels.size());
      rest /= f.levels.size();
      s.set(f.name, f.levels[g.level.back()]);
    }
    if (auto values = attributes.encode(s)) {
      g.values = std::move(*values);
      out.push_back(std::move(g));
    }
  }
  return out;
}

bool sends_left(const ZCart::Node& node, double v) {
  if (node.left_cats.empty()) return v <= node.threshold;
  const auto c = static_cast<std::size_t>(v);
  return v >= 0 && c < node.left_cats.size() && node.left_cats[c] != 0;
}

// One factor's levels `chosen` among those `present` (level indices), as a condition: a numeric
// factor's contiguous run of levels as bounds at the midpoints to its neighbours ("threads > 24"),
// anything else as a set ("mix in {web, mail}").
std::string factor_condition(const Factor& f, const std::set<std::size_t>& chosen,
                             const std::set<std::size_t>& present) {
  auto set_text = [&] {
    std::string s;
    for (std::size_t l : chosen) s += (s.empty() ? "" : ", ") + f.levels[l];
    return chosen.size() == 1 ? fmt::format("{} = {}", f.name, s) : fmt::format("{} in {{{}}}", f.name, s);
  };
  if (!f.numeric) return set_text();
  std::vector<std::size_t> order(present.begin(), present.end());
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return f.numeric_levels[a] < f.numeric_levels[b]; });
  std::size_t first = order.size(), last = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (chosen.count(order[i]) == 0) continue;
    first = std::min(first, i);
    last = i;
  }
  if (last - first + 1 != chosen.size()) return set_text();  // not one run of adjacent levels
  auto mid = [&](std::size_t i) {
    return format_number(0.5 * (f.numeric_levels[order[i]] + f.numeric_levels[order[i + 1]]));
  };
  std::string out;
  if (first > 0) out = fmt::format("{} > {}", f.name, mid(first - 1));
  if (last + 1 < order.size())
    out += fmt::format("{}{} <= {}", out.empty() ? "" : " and ", f.name, mid(last));
  return out;
}

// `side` (indices into `reach`) as a conjunction of factor conditions when it is exactly the samples
// of `reach` that satisfy one; "" otherwise.
std::string box_text(const std::vector<Factor>& factors, const std::vector<const GridSample*>& reach,
                     const std::vector<bool>& in_side) {
  std::vector<std::set<std::size_t>> chosen(factors.size()), present(factors.size());
  for (std::size_t i = 0; i < reach.size(); ++i) {
    for (std::size_t f = 0; f < factors.size(); ++f) {
      present[f].insert(reach[i]->level[f]);
      if (in_side[i]) chosen[f].insert(reach[i]->level[f]);
    }
  }
  for (std::size_t i = 0; i < reach.size(); ++i) {
    bool in_box = true;
    for (std::size_t f = 0; f < factors.size() && in_box; ++f)
      in_box = chosen[f].count(reach[i]->level[f]) > 0;
    if (in_box != in_side[i]) return "";
  }
  std::string out;
  for (std::size_t f = 0; f < factors.size(); ++f) {
    if (chosen[f] == present[f]) continue;  // no condition on this factor
    out += (out.empty() ? "" : " and ") + factor_condition(factors[f], chosen[f], present[f]);
  }
  return out;
}

// The surrogate of a split that is no box (Breiman et al. 1984, §5.3; rpart's surrogates): over
// each factor, the levels sent left that agree with the split most often: a cut between adjacent
// levels of a numeric factor (either way round), a set of levels for any other.
void best_surrogate(const std::vector<Factor>& factors, const std::vector<const GridSample*>& reach,
                    const std::vector<bool>& left, FactorSplit& fs) {
  const std::size_t n = reach.size();
  std::size_t best = std::max(fs.to_left, n - fs.to_left);  // all to the larger side
  for (std::size_t f = 0; f < factors.size(); ++f) {
    std::vector<std::size_t> sent_left(factors[f].levels.size()), total(factors[f].levels.size());
    std::set<std::size_t> present;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t l = reach[i]->level[f];
      present.insert(l);
      ++total[l];
      if (left[i]) ++sent_left[l];
    }
    if (present.size() < 2) continue;
    auto agreement = [&](const std::set<std::size_t>& chosen) {
      std::size_t a = 0;
      for (std::size_t l : present) a += chosen.count(l) > 0 ? sent_left[l] : total[l] - sent_left[l];
      return a;
    };
    std::vector<std::set<std::size_t>> candidates;
    if (factors[f].numeric) {
      std::vector<std::size_t> order(present.begin(), present.end());
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return factors[f].numeric_levels[a] < factors[f].numeric_levels[b];
      });
      for (std::size_t cut = 1; cut < order.size(); ++cut) {
        candidates.emplace_back(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(cut));
        candidates.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(cut), order.end());
      }
    } else {
      std::set<std::size_t> mostly_left;
      for (std::size_t l : present)
        if (2 * sent_left[l] > total[l]) mostly_left.insert(l);
      if (!mostly_left.empty() && mostly_left.size() < present.size()) candidates.push_back(mostly_left);
    }
    for (const auto& chosen : candidates) {
      const std::size_t a = agreement(chosen);
      if (a <= best) continue;
      best = a;
      fs.surrogate = factor_condition(factors[f], chosen, present);
      fs.agree = a;
    }
  }
}

// The live nodes from the root in tree order (a tree may hold unreachable nodes of rebuilt
// subtrees): its splits, and its leaves.
struct LiveNodes {
  std::vector<int> splits, leaves;
};
LiveNodes live_nodes(const ZCart& tree) {
  LiveNodes out;
  const auto& nodes = tree.nodes();
  std::vector<int> stack{0};
  while (!stack.empty() && !nodes.empty()) {
    const int id = stack.back();
    stack.pop_back();
    const ZCart::Node& node = nodes[static_cast<std::size_t>(id)];
    if (node.attr < 0) {
      out.leaves.push_back(id);
      continue;
    }
    out.splits.push_back(id);
    stack.push_back(node.right);
    stack.push_back(node.left);
  }
  return out;
}

// Whether the attribute is derived from the model (not a factor itself).
bool is_derived(const ZCartAttributes& attributes, int attr) {
  const auto& deps = attributes.factors_of(static_cast<std::size_t>(attr));
  return !(deps.size() == 1 && deps.front() == attributes.schema()[static_cast<std::size_t>(attr)].name);
}

}  // namespace

FactorReading read_over_factors(const ZCart& tree, const ZCartAttributes& attributes,
                                std::size_t max_samples) {
  const auto& schema = attributes.schema();
  const auto& nodes = tree.nodes();
  const LiveNodes live = live_nodes(tree);
  std::vector<int> splits;
  for (int id : live.splits)
    if (is_derived(attributes, nodes[static_cast<std::size_t>(id)].attr)) splits.push_back(id);
  if (splits.empty()) return {};
  // Encoding a combination solves the model: once for both readings.
  const std::vector<GridSample> grid = level_grid(attributes, max_samples);
  if (grid.empty()) return {};
  const auto& factors = attributes.config().factors();
  FactorReading out;
  for (int id : splits) {
    const ZCart::Node& node = nodes[static_cast<std::size_t>(id)];
    const Attribute& a = schema[static_cast<std::size_t>(node.attr)];
    FactorSplit fs;
    if (node.left_cats.empty()) {
      fs.split = fmt::format("{} <= {:.6g}", a.name, node.threshold);
    } else {
      std::string cats;
      for (std::size_t c = 0; c < node.left_cats.size() && c < a.categories.size(); ++c)
        if (node.left_cats[c] != 0) cats += (cats.empty() ? "" : ", ") + a.categories[c];
      fs.split = fmt::format("{} in {{{}}}", a.name, cats);
    }
    std::vector<const GridSample*> reach;
    std::vector<bool> left, right;
    for (const GridSample& g : grid) {
      if (!tree.reaches(id, g.values.data())) continue;
      reach.push_back(&g);
      left.push_back(sends_left(node, g.values[static_cast<std::size_t>(node.attr)]));
      right.push_back(!left.back());
    }
    fs.samples = reach.size();
    fs.to_left = static_cast<std::size_t>(std::count(left.begin(), left.end(), true));
    if (fs.to_left > 0 && fs.to_left < fs.samples) {
      fs.left = box_text(factors, reach, left);
      fs.right = box_text(factors, reach, right);
      if (fs.left.empty()) best_surrogate(factors, reach, left, fs);
    }
    out.splits.push_back(std::move(fs));
  }
  std::vector<const GridSample*> all;
  all.reserve(grid.size());
  for (const GridSample& g : grid) all.push_back(&g);
  for (int id : live.leaves) {
    const ZCart::Node& node = nodes[static_cast<std::size_t>(id)];
    std::vector<bool> in_leaf;
    const GridSample* first = nullptr;
    for (const GridSample& g : grid) {
      in_leaf.push_back(tree.reaches(id, g.values.data()));
      if (in_leaf.back() && first == nullptr) first = &g;
    }
    if (first == nullptr) continue;  // no combination of levels reaches it
    FactorLeaf leaf;
    leaf.rule = tree.predict(first->values, 1.0).rule;
    leaf.correction = node.correction;
    leaf.cap = node.cap;
    leaf.samples = static_cast<std::size_t>(std::count(in_leaf.begin(), in_leaf.end(), true));
    if (leaf.samples < grid.size()) leaf.box = box_text(factors, all, in_leaf);
    out.leaves.push_back(std::move(leaf));
  }
  return out;
}

std::vector<FactorSplit> factor_splits(const ZCart& tree, const ZCartAttributes& attributes,
                                       std::size_t max_samples) {
  return read_over_factors(tree, attributes, max_samples).splits;
}

std::vector<FactorLeaf> factor_leaves(const ZCart& tree, const ZCartAttributes& attributes,
                                      std::size_t max_samples) {
  return read_over_factors(tree, attributes, max_samples).leaves;
}

nlohmann::json factor_leaves_json(const std::vector<FactorLeaf>& leaves) {
  nlohmann::json out = nlohmann::json::array();
  for (const FactorLeaf& l : leaves)
    out.push_back({{"rule", l.rule},
                   {"correction", l.correction},
                   {"cap", l.cap},
                   {"samples", l.samples},
                   {"box", l.box.empty() ? nlohmann::json() : nlohmann::json(l.box)}});
  return out;
}

nlohmann::json factor_splits_json(const std::vector<FactorSplit>& splits) {
  nlohmann::json out = nlohmann::json::array();
  auto side = [](const std::string& text) { return text.empty() ? nlohmann::json() : nlohmann::json(text); };
  for (const FactorSplit& f : splits)
    out.push_back({{"split", f.split},
                   {"samples", f.samples},
                   {"to_left", f.to_left},
                   {"left", side(f.left)},
                   {"right", side(f.right)},
                   {"surrogate", side(f.surrogate)},
                   {"agree", f.agree}});
  return out;
}

}  // namespace wb
