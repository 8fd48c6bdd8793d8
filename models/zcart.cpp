// Z-CART observation table, prediction and incremental learning [000 §3.3.1]. The tree build
// (split search) is in zcart_split.cpp, text and JSON in zcart_io.cpp.
#include "models/zcart.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/stats.hpp"

namespace wb {

ObservationTable::ObservationTable(std::vector<Attribute> schema)
    : schema_(std::move(schema)),
      dict_values_(schema_.size()),
      small_(schema_.size()),
      dict_(schema_.size()) {
  for (const auto& a : schema_)
    if (a.kind == AttributeKind::kCategorical && a.categories.empty())
      throw InputError(fmt::format("zcart: categorical attribute '{}' has no categories", a.name));
}

void ObservationTable::reserve(std::size_t rows) {
  codes_.reserve(rows * schema_.size());
  ratio_.reserve(rows);
  expected_.reserve(rows);
}

std::uint32_t ObservationTable::add(const Observation& o) {
  if (o.values.size() != schema_.size())
    throw InputError(fmt::format("zcart: observation has {} attribute values, schema has {}", o.values.size(),
                                 schema_.size()));
  return add(o.values.data(), o.expected, o.observed);
}

std::uint32_t ObservationTable::add(const double* values, double expected, double observed) {
  if (!(std::isfinite(expected) && expected > 0) || !(std::isfinite(observed) && observed > 0))
    throw InputError(fmt::format("zcart: expected ({}) and observed ({}) must be positive and finite",
                                 expected, observed));
  if (ratio_.size() >= std::numeric_limits<std::uint32_t>::max())
    throw InputError("zcart: too many observations");
  for (std::size_t a = 0; a < schema_.size(); ++a) {
    double v = values[a];
    if (!std::isfinite(v))
      throw InputError(fmt::format("zcart: attribute '{}' value {} is not finite", schema_[a].name, v));
    if (schema_[a].kind == AttributeKind::kCategorical) {
      if (v < 0 || v != std::floor(v) || v >= static_cast<double>(schema_[a].categories.size()))
        throw InputError(fmt::format("zcart: attribute '{}' category index {} out of range [0, {})",
                                     schema_[a].name, v, schema_[a].categories.size()));
    }
  }
  for (std::size_t a = 0; a < schema_.size(); ++a) {
    double v = values[a];
    if (schema_[a].kind == AttributeKind::kCategorical) {
      codes_.push_back(static_cast<std::uint32_t>(v));
      continue;
    }
    if (v == 0) v = 0;  // -0.0 and 0.0 are one value
    if (v >= 0 && v < kSmallValues && static_cast<double>(static_cast<std::uint32_t>(v)) == v) {
      auto& small = small_[a];
      if (small.empty()) small.assign(kSmallValues, 0);
      std::uint32_t& slot = small[static_cast<std::uint32_t>(v)];
      if (slot == 0) {
        dict_values_[a].push_back(v);
        slot = static_cast<std::uint32_t>(dict_values_[a].size());
      }
      codes_.push_back(slot - 1);
      continue;
    }
    auto [it, inserted] = dict_[a].try_emplace(v, static_cast<std::uint32_t>(dict_values_[a].size()));
    if (inserted) dict_values_[a].push_back(v);
    codes_.push_back(it->second);
  }
  ratio_.push_back(observed / expected);
  expected_.push_back(expected);
  return static_cast<std::uint32_t>(ratio_.size() - 1);
}

std::uint32_t ObservationTable::restore(const double* values, double ratio, double expected) {
  // Validated as an observation with that ratio; the ratio itself is kept bit for bit.
  const std::uint32_t row = add(values, 1.0, ratio);
  ratio_[row] = ratio;
  expected_[row] = expected;
  return row;
}

void ObservationTable::permute(const std::vector<std::uint32_t>& order) {
  // Cycle-following gather with one row of scratch, so a 2.5M-row table needs no second copy.
  const std::size_t a = schema_.size();
  std::vector<bool> done(order.size(), false);
  std::vector<std::uint32_t> codes(a);
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (done[i] || order[i] == i) continue;
    std::copy_n(&codes_[i * a], a, codes.begin());
    double ratio = ratio_[i];
    double expected = expected_[i];
    std::size_t j = i;
    for (;;) {
      std::size_t k = order[j];
      done[j] = true;
      if (k == i) {
        std::copy_n(codes.begin(), a, &codes_[j * a]);
        ratio_[j] = ratio;
        expected_[j] = expected;
        break;
      }
      std::copy_n(&codes_[k * a], a, &codes_[j * a]);
      ratio_[j] = ratio_[k];
      expected_[j] = expected_[k];
      j = k;
    }
  }
}

double ObservationTable::value_of(std::size_t attr, std::uint32_t code) const {
  if (schema_[attr].kind == AttributeKind::kCategorical) return code;
  return dict_values_[attr][code];
}

ZCart::ZCart(std::vector<Attribute> schema, ZCartOptions options)
    : options_(options), table_(std::move(schema)) {
  if (!(options_.tolerance > 0) || options_.min_leaf < 1 || options_.max_depth < 0 || options_.max_bins < 2 ||
      !(options_.retrain_growth >= 0) || !(options_.min_gain >= 0) || !(options_.keep_prior.sd >= 0) ||
      !(options_.keep_prior.df >= 0) || !std::isfinite(options_.keep_prior.sd + options_.keep_prior.df))
    throw InputError(
        "zcart: invalid options (need tolerance > 0, min_leaf >= 1, max_depth >= 0, "
        "max_bins >= 2, retrain_growth >= 0, min_gain >= 0, a finite keep prior >= 0)");
  nodes_.emplace_back();
  index_nodes();
}

int ZCart::band_of(double ratio) const {
  // Bands are 2·ln(1+tol) wide in log space and centred on ratio 1, so band 0 is exactly
  // "within tolerance of the expectation model".
  double b = std::log(ratio) / (2.0 * std::log1p(options_.tolerance));
  return static_cast<int>(std::lround(b));
}

void ZCart::finish_leaf(Node& node) const {
  node.attr = -1;
  node.left = node.right = -1;
  node.left_cats.clear();
  node.n = node.rows.size();
  node.sum_ratio = node.sum_ratio_sq = node.sum_log = 0;
  node.histogram.clear();
  for (auto r : node.rows) {
    double x = table_.ratio(r);
    node.sum_ratio += x;
    node.sum_ratio_sq += x * x;
    node.sum_log += std::log(x);
    ++node.histogram[band_of(x)];
  }
  if (node.n == 0) {
    node.correction = 1;
  } else if (options_.criterion == SplitCriterion::kLogRatioVariance) {
    node.correction = std::exp(node.sum_log / static_cast<double>(node.n));
  } else {
    node.correction = node.sum_ratio / static_cast<double>(node.n);
  }
  // The expectation stands where the leaf's evidence does not contradict it: a mean log ratio
  // inside its own 90% confidence interval of zero is noise, or agreeing and deviating samples
  // mixed, and correcting by it moves every sample that agrees (docs/decisions.md#zcart-leaves).
  if (options_.keep_expectation && node.n >= 2) {
    double sum = 0, sum_sq = 0;
    for (auto r : node.rows) {
      const double l = std::log(table_.ratio(r));
      sum += l, sum_sq += l * l;
    }
    const double n = static_cast<double>(node.n), mean = sum / n;
    // With the prior's spread: two samples alone leave one degree of freedom and t = 6.3, so two
    // that agree on a deviation the tree split off for would be called noise.
    const double prior_df = std::max(0.0, options_.keep_prior.df);
    const double df = prior_df + n - 1;
    const double sd = std::sqrt(std::max(
        0.0, (prior_df * options_.keep_prior.sd * options_.keep_prior.sd + sum_sq - sum * mean) / df));
    if (std::abs(mean) <= t_quantile(0.90, df) * sd / std::sqrt(n)) node.correction = 1;
  }
  node.fidelity_count = 0;
  for (auto r : node.rows)
    if (std::abs(node.correction - table_.ratio(r)) <= options_.tolerance * table_.ratio(r))
      ++node.fidelity_count;
  node.trained_n = node.n;
  node.cap = node.cap_sd = 0;
  choose_leaf_model(node);
}

void ZCart::choose_leaf_model(Node& node) const {
  // Two leaf models [docs/decisions.md#zcart-leaves]: the ratio (expected x correction) and a cap
  // (min(expected, c)): a resource the expectation lacks caps λ* whatever the expectation says.
  // c is the geometric mean of the λ* the cap holds down (below expected by more than the
  // tolerance). Each model is judged by its leave-one-out relative error; the cap must beat the
  // ratio by a tenth, so a near tie keeps the paper's ratio.
  if (node.n < 2) return;
  const double n = static_cast<double>(node.n);
  const double tol = options_.tolerance;
  double sum_log_held = 0, held = 0;
  for (auto r : node.rows) {
    const double e = table_.expected(r);
    if (!(e > 0) || !std::isfinite(e)) return;  // restored without expectations
    if (table_.ratio(r) < 1 - tol) sum_log_held += std::log(table_.ratio(r) * e), ++held;
  }
  if (held == 0) return;
  double loo_ratio = 0, loo_cap = 0;
  for (auto r : node.rows) {
    const double x = table_.ratio(r), e = table_.expected(r), o = x * e;
    const double rest = options_.criterion == SplitCriterion::kLogRatioVariance
                            ? std::exp((node.sum_log - std::log(x)) / (n - 1))
                            : (node.sum_ratio - x) / (n - 1);
    loo_ratio += std::abs(rest - x) / x;
    const bool own = x < 1 - tol;
    const double others = held - (own ? 1 : 0);
    const double c = others > 0 ? std::exp((sum_log_held - (own ? std::log(o) : 0)) / others)
                                : std::numeric_limits<double>::infinity();
    loo_cap += std::abs(std::min(e, c) - o) / o;
  }
  if (!(loo_cap < 0.9 * loo_ratio)) return;
  node.cap = std::exp(sum_log_held / held);
  double sum = 0, sum_sq = 0;
  node.fidelity_count = 0;
  for (auto r : node.rows) {
    const double o = table_.ratio(r) * table_.expected(r);
    const double d = std::min(table_.expected(r), node.cap) - o;  // the cap's error at this row
    sum += d, sum_sq += d * d;
    if (std::abs(d) <= tol * o) ++node.fidelity_count;
  }
  node.cap_sd = std::sqrt(std::max(0.0, (sum_sq - sum * sum / n) / (n - 1)));
}

void ZCart::fit(const std::vector<Observation>& observations) {
  ObservationTable t(table_.schema());
  t.reserve(observations.size());
  for (const auto& o : observations) t.add(o);
  fit(std::move(t));
}

void ZCart::fit(ObservationTable table) {
  table_ = std::move(table);
  retrain();
}

void ZCart::retrain() {
  nodes_.clear();
  nodes_.emplace_back();
  std::vector<std::uint32_t> rows(table_.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::uint32_t>(i);
  rebuild(0, std::move(rows), 0);
}

void ZCart::add(const Observation& observation) {
  std::uint32_t row = table_.add(observation);
  double x = table_.ratio(row);
  const double* values = observation.values.data();
  // Every node on the path counts the observation (inner nodes summarize their subtree).
  std::vector<int> path{0};
  while (nodes_[path.back()].attr >= 0) {
    const Node& nd = nodes_[path.back()];
    double v = values[nd.attr];
    bool left = nd.left_cats.empty() ? v <= nd.threshold
                                     : static_cast<std::size_t>(v) < nd.left_cats.size() &&
                                           nd.left_cats[static_cast<std::size_t>(v)] != 0;
    path.push_back(left ? nd.left : nd.right);
  }
  // Exact only when the tree holds every observation it counts (not one restored without them).
  if (options_.exact_add && nodes_[0].n + 1 == table_.size()) {
    add_exact(row, path);
    return;
  }
  for (int id : path) {
    Node& nd = nodes_[id];
    ++nd.n;
    nd.sum_ratio += x;
    nd.sum_ratio_sq += x * x;
    nd.sum_log += std::log(x);
    double n = static_cast<double>(nd.n);
    nd.correction =
        options_.criterion == SplitCriterion::kLogRatioVariance ? std::exp(nd.sum_log / n) : nd.sum_ratio / n;
  }
  int id = path.back();
  Node& leaf = nodes_[id];
  leaf.rows.push_back(row);
  ++leaf.histogram[band_of(x)];
  std::uint64_t fidelity_before = leaf.fidelity_count;
  // The leaf's other observations are recounted exactly at its next retrain.
  if (std::abs(leaf.correction - x) <= options_.tolerance * x) ++leaf.fidelity_count;
  auto grown =
      static_cast<std::uint64_t>(std::ceil(static_cast<double>(leaf.trained_n) * options_.retrain_growth));
  // A leaf loaded from JSON without its observations keeps counting but never retrains: a subtree
  // built from only the newer observations would silently drop the persisted statistics.
  if (leaf.rows.size() == leaf.n && leaf.n >= 2u * static_cast<std::uint64_t>(options_.min_leaf) &&
      leaf.n >= leaf.trained_n + std::max<std::uint64_t>(1, grown)) {
    std::vector<std::uint32_t> rows = std::move(leaf.rows);
    rebuild(id, std::move(rows), static_cast<int>(path.size()) - 1);
  }
  std::uint64_t fidelity_after = nodes_[id].fidelity_count;
  for (std::size_t i = 0; i + 1 < path.size(); ++i)
    nodes_[path[i]].fidelity_count = nodes_[path[i]].fidelity_count + fidelity_after - fidelity_before;
}

void ZCart::add_exact(std::uint32_t row, const std::vector<int>& path) {
  // The first node on the path whose split a build would now choose differently (or the leaf) is
  // rebuilt; the splits above it hold, so the new row reaches it through them as in a batch build.
  std::size_t d = 0;
  for (; d + 1 < path.size(); ++d) {
    std::vector<std::uint32_t> rows;
    collect_rows(path[d], rows);
    rows.push_back(row);
    if (!split_holds(path[d], std::move(rows), static_cast<int>(d))) break;
  }
  std::vector<std::uint32_t> rows;
  collect_rows(path[d], rows);
  rows.push_back(row);
  rebuild(path[d], std::move(rows), static_cast<int>(d));
  for (std::size_t i = d; i-- > 0;) {
    Node& nd = nodes_[path[i]];
    ++nd.n;
    nd.trained_n = nd.n;
    summarize(path[i]);
  }
  compact();
}

void ZCart::summarize(int id) {
  Node& nd = nodes_[id];
  const Node& l = nodes_[nd.left];
  const Node& r = nodes_[nd.right];
  nd.sum_ratio = l.sum_ratio + r.sum_ratio;
  nd.sum_ratio_sq = l.sum_ratio_sq + r.sum_ratio_sq;
  nd.sum_log = l.sum_log + r.sum_log;
  nd.fidelity_count = l.fidelity_count + r.fidelity_count;
  double n = static_cast<double>(nd.n);
  nd.correction =
      options_.criterion == SplitCriterion::kLogRatioVariance ? std::exp(nd.sum_log / n) : nd.sum_ratio / n;
}

void ZCart::collect_rows(int id, std::vector<std::uint32_t>& out) const {
  const Node& nd = nodes_[id];
  if (nd.attr < 0) {
    out.insert(out.end(), nd.rows.begin(), nd.rows.end());
    return;
  }
  collect_rows(nd.left, out);
  collect_rows(nd.right, out);
}

void ZCart::compact() {
  std::vector<Node> out;
  out.push_back(std::move(nodes_[0]));
  auto visit = [&](auto& self, std::size_t id) -> void {
    if (out[id].attr < 0) return;
    const int left = out[id].left, right = out[id].right;
    const auto at = out.size();
    out.push_back(std::move(nodes_[left]));
    out.push_back(std::move(nodes_[right]));
    out[id].left = static_cast<int>(at);
    out[id].right = static_cast<int>(at + 1);
    self(self, at);
    self(self, at + 1);
  };
  visit(visit, 0);
  nodes_ = std::move(out);
  index_nodes();
}

void ZCart::index_nodes() {
  steps_.resize(nodes_.size());
  threshold_text_.clear();
  threshold_at_.assign(nodes_.size(), {0, 0});
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node& nd = nodes_[i];
    steps_[i] = Step{nd.threshold, nd.attr, nd.left, nd.right, nd.left_cats.empty() ? 0 : 1};
    if (nd.attr >= 0 && nd.left_cats.empty()) {
      std::size_t at = threshold_text_.size();
      fmt::format_to(std::back_inserter(threshold_text_), "{:.6g}", nd.threshold);
      threshold_at_[i] = {static_cast<std::uint32_t>(at),
                          static_cast<std::uint32_t>(threshold_text_.size() - at)};
    }
  }
}

bool ZCart::goes_left(int id, double v) const {
  const Step& st = steps_[static_cast<std::size_t>(id)];
  if (st.categorical == 0) return v <= st.threshold;
  const auto& cats = nodes_[static_cast<std::size_t>(id)].left_cats;
  auto c = static_cast<std::size_t>(v);
  return v >= 0 && c < cats.size() && cats[c] != 0;
}

std::vector<std::uint32_t> ZCart::rows_under(int id) const {
  std::vector<std::uint32_t> out;
  collect_rows(id, out);
  return out;
}

bool ZCart::reaches(int id, const double* values) const {
  int at = 0;
  for (;;) {
    if (at == id) return true;
    if (nodes_[static_cast<std::size_t>(at)].attr < 0) return false;
    at = goes_left(at, values[nodes_[static_cast<std::size_t>(at)].attr])
             ? nodes_[static_cast<std::size_t>(at)].left
             : nodes_[static_cast<std::size_t>(at)].right;
  }
}

int ZCart::leaf_of(const double* values) const {
  const Step* steps = steps_.data();
  int id = 0;
  while (steps[id].attr >= 0) {
    const Step& st = steps[id];
    double v = values[st.attr];
    bool left = st.categorical == 0 ? v <= st.threshold : goes_left(id, v);
    id = left ? st.left : st.right;
  }
  return id;
}

double ZCart::predict_value(const double* values, double expected) const {
  const Node& leaf = nodes_[leaf_of(values)];
  return leaf.cap > 0 ? std::min(expected, leaf.cap) : expected * leaf.correction;
}

ZCartPrediction ZCart::predict(const std::vector<double>& values, double expected, bool with_rule) const {
  if (values.size() != table_.attributes())
    throw InputError(fmt::format("zcart: prediction has {} attribute values, schema has {}", values.size(),
                                 table_.attributes()));
  const Node& leaf = nodes_[leaf_of(values.data())];
  ZCartPrediction p;
  p.correction = leaf.correction;
  p.value = expected * leaf.correction;
  p.n = leaf.n;
  double n = static_cast<double>(leaf.n);
  p.fidelity =
      leaf.n == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(leaf.fidelity_count) / n;
  if (leaf.cap > 0) {
    p.cap = leaf.cap;
    p.value = std::min(expected, leaf.cap);
    p.correction = p.value / expected;
    p.spread = leaf.cap_sd;
  } else if (leaf.n > 1) {
    double var = (leaf.sum_ratio_sq - leaf.sum_ratio * leaf.sum_ratio / n) / (n - 1);
    p.spread = expected * std::sqrt(std::max(0.0, var));
  }
  if (with_rule) p.rule = rule_of(values.data());
  return p;
}

LeafResiduals ZCart::leaf_residuals(const std::vector<double>& values) const {
  if (values.size() != table_.attributes())
    throw InputError(fmt::format("zcart: residuals asked with {} attribute values, schema has {}",
                                 values.size(), table_.attributes()));
  const Node& leaf = nodes_[leaf_of(values.data())];
  LeafResiduals out;
  out.fitted = leaf.cap > 0 || leaf.correction != 1;
  for (auto r : leaf.rows) {
    const double x = table_.ratio(r), e = table_.expected(r);
    double residual = std::log(x / leaf.correction);
    if (leaf.cap > 0) {
      if (!(e > 0) || !std::isfinite(e)) continue;
      residual = std::log(x * e / std::min(e, leaf.cap));
    }
    out.sum_sq += residual * residual;
    ++out.n;
  }
  return out;
}

int ZCart::depth() const {
  std::vector<int> d(nodes_.size(), 0);
  int best = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {  // children always follow their parent
    best = std::max(best, d[i]);
    if (nodes_[i].attr >= 0) d[nodes_[i].left] = d[nodes_[i].right] = d[i] + 1;
  }
  return best;
}

const char* to_string(SplitCriterion c) {
  switch (c) {
    case SplitCriterion::kInfoGain: return "info_gain";
    case SplitCriterion::kLogRatioVariance: return "log_ratio_variance";
    case SplitCriterion::kRatioVariance: return "ratio_variance";
  }
  return "?";
}

SplitCriterion split_criterion_from_string(const std::string& s) {
  if (s == "info_gain") return SplitCriterion::kInfoGain;
  if (s == "log_ratio_variance") return SplitCriterion::kLogRatioVariance;
  if (s == "ratio_variance") return SplitCriterion::kRatioVariance;
  throw InputError(
      fmt::format("zcart: unknown split criterion '{}' (info_gain, "
                  "log_ratio_variance, ratio_variance)",
                  s));
}

}  // namespace wb
