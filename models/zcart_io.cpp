// Z-CART as text (rule paths, `workbench model show`) and as JSON (for the store).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include <fmt/format.h>
#include <boost/container/small_vector.hpp>

#include "core/error.hpp"
#include "models/zcart.hpp"

namespace wb {
namespace {

std::string category_set(const Attribute& a, const std::vector<std::uint8_t>& left, bool in_left) {
  std::string s;
  for (std::size_t c = 0; c < left.size() && c < a.categories.size(); ++c) {
    if ((left[c] != 0) != in_left) continue;
    if (!s.empty()) s += ", ";
    s += a.categories[c];
  }
  return "{" + s + "}";
}

std::string condition(const Attribute& a, const ZCart::Node& nd, bool left) {
  if (nd.left_cats.empty()) return fmt::format("{} {} {:.6g}", a.name, left ? "<=" : ">", nd.threshold);
  // Categories never seen at the split go right, so the right branch reads "not in".
  return fmt::format("{} {} {}", a.name, left ? "in" : "not in", category_set(a, nd.left_cats, true));
}

std::string leaf_text(const ZCart::Node& nd) {
  if (nd.n == 0) return "correction=1 n=0 fidelity=undefined";
  double n = static_cast<double>(nd.n);
  double var = nd.n > 1 ? (nd.sum_ratio_sq - nd.sum_ratio * nd.sum_ratio / n) / (n - 1) : 0;
  if (nd.cap > 0)
    return fmt::format("cap={:.4g} n={} fidelity={}/{} ({:.1f}%) spread={:.3g} (ratio {:.4g})", nd.cap, nd.n,
                       nd.fidelity_count, nd.n, 100.0 * static_cast<double>(nd.fidelity_count) / n, nd.cap_sd,
                       nd.correction);
  return fmt::format("correction={:.4g} n={} fidelity={}/{} ({:.1f}%) spread={:.3g}", nd.correction, nd.n,
                     nd.fidelity_count, nd.n, 100.0 * static_cast<double>(nd.fidelity_count) / n,
                     std::sqrt(std::max(0.0, var)));
}

}  // namespace

std::string ZCart::rule_of(const double* values) const {
  // Numeric bounds on one attribute merge into the tightest pair ("8 < threads <= 32"), parts in the
  // order their attribute or split first appears on the path. Thresholds come preformatted, so for usual
  // trees only the returned string is allocated.
  struct PathBounds {
    int lo = -1, hi = -1;  // the node whose threshold is the bound; -1: none
  };
  struct Part {
    int attr_or_node;  // numeric: attribute; categorical: -1 - node id
    bool left;         // categorical: the branch taken
  };
  boost::container::small_vector<Part, 32> order;
  boost::container::small_vector<PathBounds, 16> bounds(table_.attributes());
  const auto& schema = table_.schema();
  const Step* steps = steps_.data();
  int id = 0;
  while (steps[id].attr >= 0) {
    const Step& st = steps[id];
    bool left = goes_left(id, values[st.attr]);
    if (st.categorical == 0) {
      PathBounds& bd = bounds[static_cast<std::size_t>(st.attr)];
      if (bd.lo < 0 && bd.hi < 0) order.push_back({st.attr, false});
      // As std::min / std::max: an equal threshold keeps the earlier bound.
      if (left) {
        if (bd.hi < 0 || st.threshold < steps[bd.hi].threshold) bd.hi = id;
      } else {
        if (bd.lo < 0 || steps[bd.lo].threshold < st.threshold) bd.lo = id;
      }
    } else {
      order.push_back({-1 - id, left});
    }
    id = left ? st.left : st.right;
  }
  std::string rule;
  if (order.empty()) return rule;
  auto text = [this](int node) {
    auto [at, len] = threshold_at_[static_cast<std::size_t>(node)];
    return std::string_view(threshold_text_).substr(at, len);
  };
  rule.reserve(40 * order.size());
  for (const Part& part : order) {
    if (!rule.empty()) rule += " and ";
    if (part.attr_or_node < 0) {
      const Node& nd = nodes_[static_cast<std::size_t>(-1 - part.attr_or_node)];
      rule += condition(schema[static_cast<std::size_t>(nd.attr)], nd, part.left);
      continue;
    }
    const PathBounds& bd = bounds[static_cast<std::size_t>(part.attr_or_node)];
    const std::string& name = schema[static_cast<std::size_t>(part.attr_or_node)].name;
    if (bd.lo >= 0 && bd.hi >= 0) {
      rule += text(bd.lo);
      rule += " < ";
      rule += name;
      rule += " <= ";
      rule += text(bd.hi);
    } else if (bd.lo >= 0) {
      rule += name;
      rule += " > ";
      rule += text(bd.lo);
    } else {
      rule += name;
      rule += " <= ";
      rule += text(bd.hi);
    }
  }
  return rule;
}

std::string ZCart::describe() const {
  std::string out =
      fmt::format("zcart: {} nodes, depth {}, {} observations, criterion {}, tolerance {}\n", nodes_.size(),
                  depth(), table_.size(), to_string(options_.criterion), options_.tolerance);
  const auto& schema = table_.schema();
  auto walk = [&](auto& self, int id, int indent, const std::string& head) -> void {
    const Node& nd = nodes_[id];
    std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    if (nd.attr < 0) {
      out += fmt::format("{}{}: {}\n", pad, head, leaf_text(nd));
      return;
    }
    out += fmt::format("{}{}: n={} correction={:.4g}\n", pad, head, nd.n, nd.correction);
    self(self, nd.left, indent + 1, condition(schema[nd.attr], nd, true));
    self(self, nd.right, indent + 1, condition(schema[nd.attr], nd, false));
  };
  walk(walk, 0, 0, "(all)");
  return out;
}

nlohmann::json ZCart::to_json(bool with_observations) const {
  nlohmann::json j;
  auto& sch = j["schema"] = nlohmann::json::array();
  for (const auto& a : table_.schema())
    sch.push_back({{"name", a.name},
                   {"kind", a.kind == AttributeKind::kNumeric ? "numeric" : "categorical"},
                   {"categories", a.categories}});
  j["options"] = {{"tolerance", options_.tolerance},
                  {"criterion", to_string(options_.criterion)},
                  {"min_leaf", options_.min_leaf},
                  {"min_gain", options_.min_gain},
                  {"max_depth", options_.max_depth},
                  {"max_bins", options_.max_bins},
                  {"retrain_growth", options_.retrain_growth},
                  {"exact_add", options_.exact_add},
                  {"keep_expectation", options_.keep_expectation},
                  {"keep_prior_sd", options_.keep_prior.sd},
                  {"keep_prior_df", options_.keep_prior.df}};
  auto& nodes = j["nodes"] = nlohmann::json::array();
  for (const auto& nd : nodes_) {
    nlohmann::json x = {{"n", nd.n},
                        {"sum_ratio", nd.sum_ratio},
                        {"sum_ratio_sq", nd.sum_ratio_sq},
                        {"sum_log", nd.sum_log},
                        {"correction", nd.correction},
                        {"fidelity_count", nd.fidelity_count},
                        {"trained_n", nd.trained_n}};
    if (nd.attr >= 0) {
      x["attr"] = nd.attr;
      x["left"] = nd.left;
      x["right"] = nd.right;
      if (nd.left_cats.empty())
        x["threshold"] = nd.threshold;
      else
        x["left_categories"] = nd.left_cats;
    } else {
      if (nd.cap > 0) x["cap"] = nd.cap, x["cap_sd"] = nd.cap_sd;
      auto& hist = x["histogram"] = nlohmann::json::array();
      for (auto [band, count] : nd.histogram) hist.push_back({band, count});
    }
    nodes.push_back(std::move(x));
  }
  if (with_observations) {
    auto& obs = j["observations"] = nlohmann::json::array();
    for (std::size_t r = 0; r < table_.size(); ++r) {
      nlohmann::json values = nlohmann::json::array();
      for (std::size_t a = 0; a < table_.attributes(); ++a) values.push_back(table_.value(r, a));
      nlohmann::json o{{"values", std::move(values)}, {"ratio", table_.ratio(r)}};
      if (std::isfinite(table_.expected(r))) o["expected"] = table_.expected(r);
      obs.push_back(std::move(o));
    }
  }
  return j;
}

ZCart ZCart::from_json(const nlohmann::json& j) {
  try {
    std::vector<Attribute> schema;
    for (const auto& a : j.at("schema")) {
      Attribute at;
      at.name = a.at("name").get<std::string>();
      std::string kind = a.at("kind").get<std::string>();
      if (kind != "numeric" && kind != "categorical")
        throw InputError("zcart json: bad attribute kind " + kind);
      at.kind = kind == "numeric" ? AttributeKind::kNumeric : AttributeKind::kCategorical;
      at.categories = a.at("categories").get<std::vector<std::string>>();
      schema.push_back(std::move(at));
    }
    const auto& o = j.at("options");
    ZCartOptions opt;
    opt.tolerance = o.at("tolerance").get<double>();
    opt.criterion = split_criterion_from_string(o.at("criterion").get<std::string>());
    opt.min_leaf = o.at("min_leaf").get<int>();
    opt.min_gain = o.at("min_gain").get<double>();
    opt.max_depth = o.at("max_depth").get<int>();
    opt.max_bins = o.at("max_bins").get<int>();
    opt.retrain_growth = o.at("retrain_growth").get<double>();
    opt.exact_add = o.value("exact_add", false);  // trees stored before exact add() existed
    opt.keep_expectation = o.value("keep_expectation", false);
    opt.keep_prior = SpreadPrior{o.value("keep_prior_sd", 0.0), o.value("keep_prior_df", 0.0)};
    ZCart t(std::move(schema), opt);
    t.nodes_.clear();
    const auto& nodes = j.at("nodes");
    for (const auto& x : nodes) {
      Node nd;
      nd.n = x.at("n").get<std::uint64_t>();
      nd.sum_ratio = x.at("sum_ratio").get<double>();
      nd.sum_ratio_sq = x.at("sum_ratio_sq").get<double>();
      nd.sum_log = x.at("sum_log").get<double>();
      nd.correction = x.at("correction").get<double>();
      nd.fidelity_count = x.at("fidelity_count").get<std::uint64_t>();
      nd.trained_n = x.at("trained_n").get<std::uint64_t>();
      if (x.contains("attr")) {
        nd.attr = x.at("attr").get<int>();
        nd.left = x.at("left").get<int>();
        nd.right = x.at("right").get<int>();
        if (x.contains("threshold"))
          nd.threshold = x.at("threshold").get<double>();
        else
          nd.left_cats = x.at("left_categories").get<std::vector<std::uint8_t>>();
        auto size = static_cast<int>(nodes.size());
        auto self = static_cast<int>(t.nodes_.size());
        if (nd.attr >= static_cast<int>(t.table_.attributes()) || nd.left <= self || nd.right <= self ||
            nd.left >= size || nd.right >= size)
          throw InputError("zcart json: node " + std::to_string(self) + " has a bad attribute or child");
        if (nd.left_cats.empty() != (t.table_.schema()[nd.attr].kind == AttributeKind::kNumeric))
          throw InputError("zcart json: node " + std::to_string(self) +
                           " split does not match attribute kind");
      } else {
        nd.cap = x.value("cap", 0.0);
        nd.cap_sd = x.value("cap_sd", 0.0);
        for (const auto& hb : x.at("histogram"))
          nd.histogram[hb.at(0).get<int>()] = hb.at(1).get<std::uint64_t>();
      }
      t.nodes_.push_back(std::move(nd));
    }
    if (t.nodes_.empty()) throw InputError("zcart json: no nodes");
    t.index_nodes();
    if (j.contains("observations")) {
      std::vector<double> values;
      for (const auto& ob : j.at("observations")) {
        values = ob.at("values").get<std::vector<double>>();
        if (values.size() != t.table_.attributes()) throw InputError("zcart json: observation size mismatch");
        std::uint32_t r = t.table_.restore(values.data(), ob.at("ratio").get<double>(),
                                           ob.value("expected", std::numeric_limits<double>::quiet_NaN()));
        t.nodes_[t.leaf_of(values.data())].rows.push_back(r);
      }
    }
    return t;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("zcart json: ") + e.what());
  }
}

}  // namespace wb
