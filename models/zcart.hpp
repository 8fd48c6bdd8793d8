#pragma once
// Z-CART: a zero-training regression tree over system/workload attributes [000 §3.3.1]. It learns the
// ratio observed/expected to an expectation model, so an empty tree predicts the model itself; leaves
// hold the correction, count, histogram and fidelity [000 Fig. 5]. Splits by information gain [000
// eq. 1, 2] or variance reduction. fit() is order invariant, and exact add() equals fit() on the same
// observations (limits, lazy add and bins: docs/decisions.md#zcart).
// Threads: const methods may run concurrently; add/fit/retrain need exclusive access.
// Failure: wb::InputError for observations that do not match the schema, non-positive or non-finite
// expected/observed values, bad options or malformed JSON.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.hpp"

namespace wb {

enum class AttributeKind { kNumeric, kCategorical };

struct Attribute {
  std::string name;
  AttributeKind kind = AttributeKind::kNumeric;
  std::vector<std::string> categories;  // categorical only; a value is an index into this list
};

// One measurement. values[i] is the value of schema attribute i (for categorical attributes the
// category index, as a double).
struct Observation {
  std::vector<double> values;
  double expected = 1.0;  // the expectation model's prediction; 1 when there is no prior
  double observed = 0.0;
};

enum class SplitCriterion { kInfoGain, kLogRatioVariance, kRatioVariance };

struct ZCartOptions {
  double tolerance = 0.15;  // relative: a prediction p matches observed o when |p-o| <= tol*o
  SplitCriterion criterion = SplitCriterion::kInfoGain;
  int min_leaf = 5;        // minimum observations in each child of a split
  double min_gain = 1e-9;  // minimum gain (bits for info gain, variance reduction per observation)
  int max_depth = 20;
  int max_bins = 1024;           // candidate thresholds per numeric attribute (decisions.md#zcart-bins)
  double retrain_growth = 0.25;  // lazy add(): retrain a leaf when it grew by this fraction
  bool exact_add = true;         // add() keeps the tree equal to fit() (decisions.md#zcart-incremental)
  // A leaf whose mean log ratio lies within its own 90% confidence interval of 0 predicts the
  // expectation itself (correction 1): for trees whose prior is a model (decisions.md#zcart-leaves).
  bool keep_expectation = false;
  // The spread of a log ratio before the leaf's are seen (a found λ*'s own, as the answer intervals
  // take it), pooled with the leaf's in that interval; none when df = 0.
  SpreadPrior keep_prior;

  bool operator==(const ZCartOptions&) const = default;
};

struct ZCartPrediction {
  double value = 0;       // expected * correction, or min(expected, cap) in a capped leaf
  double correction = 1;  // value / expected: the leaf's learned ratio, or what its cap makes of it
  double cap = 0;         // > 0: the leaf is capped (a bottleneck the expectation lacks)
  double fidelity = 0;    // fraction of the leaf's observations predicted within tolerance; NaN if n = 0
  double spread = 0;      // standard deviation of the leaf's ratios times expected (capped: of its errors)
  std::uint64_t n = 0;    // observations in the leaf
  std::string rule;       // e.g. "threads > 32 and disks <= 2"; "" for the root
};

// The log residuals of a leaf's observations about its prediction: a prediction interval's data.
struct LeafResiduals {
  double sum_sq = 0;    // Σ log(observed / the leaf's prediction for it)²
  std::uint64_t n = 0;  // observations whose prediction is known (a cap needs their expected λ*)
  bool fitted = false;  // a ratio or cap was fitted to them (not the expectation kept as it is)
};

// Dictionary-encoded observations (row-major codes, ratio observed/expected per row).
class ObservationTable {
 public:
  explicit ObservationTable(std::vector<Attribute> schema);
  // Appends one row; values.size() must equal the schema size. Returns the row id.
  std::uint32_t add(const double* values, double expected, double observed);
  std::uint32_t add(const Observation& o);
  // Appends a row from its ratio, as to_json stored it (expected NaN when it was not stored).
  std::uint32_t restore(const double* values, double ratio, double expected);
  void reserve(std::size_t rows);

  std::size_t size() const { return ratio_.size(); }
  std::size_t attributes() const { return schema_.size(); }
  const std::vector<Attribute>& schema() const { return schema_; }
  std::uint32_t code(std::size_t row, std::size_t attr) const { return codes_[row * schema_.size() + attr]; }
  const std::uint32_t* row_codes(std::size_t row) const { return &codes_[row * schema_.size()]; }
  double value_of(std::size_t attr, std::uint32_t code) const;
  double value(std::size_t row, std::size_t attr) const { return value_of(attr, code(row, attr)); }
  double ratio(std::size_t row) const { return ratio_[row]; }
  // The expectation the row was observed against; NaN for rows restored from JSON without it.
  double expected(std::size_t row) const { return expected_[row]; }
  const double* ratios() const { return ratio_.data(); }
  // Reorders the rows: new row i is old row order[i] (a permutation of 0..size-1). In place.
  void permute(const std::vector<std::uint32_t>& order);
  // Distinct values of a numeric attribute, indexed by code (insertion order).
  const std::vector<double>& dictionary(std::size_t attr) const { return dict_values_[attr]; }

 private:
  std::vector<Attribute> schema_;
  std::vector<std::uint32_t> codes_;
  std::vector<double> ratio_;
  std::vector<double> expected_;
  std::vector<std::vector<double>> dict_values_;
  // Value -> code: small non-negative integers (the usual factor levels) through a direct array,
  // every other value through the hash map; a value always takes the same path.
  static constexpr std::uint32_t kSmallValues = 4096;
  std::vector<std::vector<std::uint32_t>> small_;  // integer value -> code + 1 (0: not seen yet)
  std::vector<std::unordered_map<double, std::uint32_t>> dict_;
};

class ZCart {
 public:
  ZCart(std::vector<Attribute> schema, ZCartOptions options = {});

  // Batch: replaces all observations and builds the tree from them.
  void fit(const std::vector<Observation>& observations);
  void fit(ObservationTable table);
  // Incremental (docs/decisions.md#zcart-incremental). A tree restored from JSON without its
  // observations only counts (lazily), whatever exact_add says.
  void add(const Observation& observation);
  // Rebuilds the whole tree from every observation held (equals fit() on them).
  void retrain();

  // values: one per schema attribute. Walks the tree; O(depth), no allocation but the rule text,
  // which is built only when with_rule.
  ZCartPrediction predict(const std::vector<double>& values, double expected = 1.0,
                          bool with_rule = true) const;
  // expected * correction only, without building the rule text.
  double predict_value(const double* values, double expected = 1.0) const;
  // The residuals of the leaf that `values` reaches (values.size() must equal the schema size).
  LeafResiduals leaf_residuals(const std::vector<double>& values) const;

  std::string describe() const;
  // The tree, its leaf statistics and (if with_observations) every observation; ratios, not expected
  // and observed. Restored without observations, a tree predicts and counts add()s but never retrains a
  // persisted leaf (docs/decisions.md#zcart-incremental).
  nlohmann::json to_json(bool with_observations = true) const;
  static ZCart from_json(const nlohmann::json& j);

  std::size_t node_count() const { return nodes_.size(); }
  // The rows of the observations under node `id` (a split or a leaf).
  std::vector<std::uint32_t> rows_under(int id) const;
  // Whether the walk of `values` from the root passes node `id`.
  bool reaches(int id, const double* values) const;
  int depth() const;
  std::size_t observation_count() const { return table_.size(); }
  // Every observation held (values and ratio), in no particular order.
  const ObservationTable& observations() const { return table_; }
  const std::vector<Attribute>& schema() const { return table_.schema(); }
  const ZCartOptions& options() const { return options_; }

  struct Node {
    int attr = -1;                        // -1: leaf
    double threshold = 0;                 // numeric: value <= threshold goes left
    std::vector<std::uint8_t> left_cats;  // categorical: left_cats[c] != 0 goes left
    int left = -1, right = -1;
    // Statistics of the observations that reached this node.
    std::uint64_t n = 0;
    double sum_ratio = 0, sum_ratio_sq = 0, sum_log = 0;
    double correction = 1;
    // Leaves only: > 0 when the leaf predicts min(expected, cap), a bottleneck the expectation
    // lacks, because that predicted its observations better held out than the ratio
    // (docs/decisions.md#zcart-leaves); cap_sd is the spread of the cap's errors on them.
    double cap = 0, cap_sd = 0;
    std::uint64_t fidelity_count = 0;        // leaves only
    std::uint64_t trained_n = 0;             // n when this leaf was last (re)trained
    std::map<int, std::uint64_t> histogram;  // log-ratio band -> count, leaves only
    std::vector<std::uint32_t> rows;         // leaves only: row ids in table_
  };
  const std::vector<Node>& nodes() const { return nodes_; }

 private:
  friend class ZCartBuilder;
  int leaf_of(const double* values) const;
  bool goes_left(int id, double v) const;
  // Rebuilds steps_ from nodes_; every change of the tree's shape ends with it.
  void index_nodes();
  std::string rule_of(const double* values) const;
  int band_of(double ratio) const;
  void finish_leaf(Node& node) const;
  // Makes a finished leaf capped when that predicts its observations better held out.
  void choose_leaf_model(Node& node) const;
  // Rebuilds the subtree at node_id (at depth `depth`) from `rows`; a former subtree's nodes stay
  // in nodes_, unreachable, until compact().
  void rebuild(int node_id, std::vector<std::uint32_t> rows, int depth);
  // Whether a build from `rows` at depth `depth` would give node `id` its current split (or leave
  // it a leaf). In zcart_split.cpp.
  bool split_holds(int id, std::vector<std::uint32_t> rows, int depth);
  // An inner node's statistics from its children's, as the batch build computes them.
  void summarize(int id);
  // The rows of the leaves under node `id`.
  void collect_rows(int id, std::vector<std::uint32_t>& out) const;
  // Drops unreachable nodes and numbers the rest in the batch build's order (a split node's two
  // children are numbered together, then the left subtree, then the right).
  void compact();
  void add_exact(std::uint32_t row, const std::vector<int>& path);

  ZCartOptions options_;
  ObservationTable table_;
  std::vector<Node> nodes_;
  // The routing part of nodes_, compact for the prediction walk (node i is steps_[i]).
  struct Step {
    double threshold = 0;
    std::int32_t attr = -1;  // -1: leaf
    std::int32_t left = -1, right = -1;
    std::int32_t categorical = 0;  // 1: the split is nodes_[i].left_cats
  };
  std::vector<Step> steps_;
  // Numeric split thresholds as rule text ("{}" of the threshold), so a rule is built by appending.
  std::string threshold_text_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> threshold_at_;  // node -> (offset, length)
};

const char* to_string(SplitCriterion c);
SplitCriterion split_criterion_from_string(const std::string& s);

}  // namespace wb
