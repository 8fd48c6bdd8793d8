#pragma once
// Z-CART: a zero-training regression tree over system/workload attributes [000 §3.3.1].
//
// The tree learns a multiplicative correction to an expectation model: each observation carries
// the expectation model's value (`expected`, 1 when there is no prior) and the measured value
// (`observed`); the tree works on the ratio observed/expected. An empty tree is one leaf with
// correction 1, so it predicts the expectation model with no training data. Leaves hold the learned
// correction, the observation count, a histogram of the observations (bands of the log ratio
// 2·ln(1+tol) wide, band 0 = ratio within [1/(1+tol), 1+tol]) and fidelity: how many of the leaf's
// observations its prediction got within tolerance [000 §3.3.1, Fig. 5].
//
// Splits [000 eq. 1, 2]: by information gain on the within-tolerance/mismatch class (an
// observation matches a node when the node's lower-median ratio predicts it within tolerance; at
// the root of a good expectation model that is "within tolerance of the expectation"), or by
// variance reduction of the log ratio, or of the ratio itself (with expected = 1 that is plain
// CART/least-squares regression, the same criterion as scikit-learn's DecisionTreeRegressor).
//
// Determinism / order invariance: observations are put into a canonical order (by content) before
// every build, candidate thresholds are scanned in ascending order, ties go to the lower attribute
// index then the lower threshold, so fit() on any permutation of the same observations builds the
// identical tree (same describe(), bit-identical predictions).
//
// Incremental learning, exact (options.exact_add, the default): add() routes the observation down
// its path and, at each node from the root, asks whether a build from that node's observations
// (the new one included) would still choose the node's split; at the first node where it would
// not, or at the leaf, it rebuilds that node's subtree from the subtree's observations and
// recomputes the statistics of the nodes above. A subtree is built exactly as the batch build
// would build it at that depth (same canonical order, same candidate thresholds), so the tree after
// any sequence of add() calls equals fit() on the same observations — same describe(), same node
// numbering, bit-identical predictions — provided (a) the criterion is information gain (its bins
// are integer counts; the variance criteria derive a child's histogram as parent minus sibling in
// the batch build, so a near-tie can round the other way in a subtree built on its own) and (b)
// no numeric attribute has more than max_bins distinct values among the observations (else the
// batch build's bins come from all rows, a subtree's from its own). Cost per add: a split check per
// node on the path, O(depth · n · attributes) at worst, against O(n log n) for a refit; meant for
// trees that grow observation by observation (the probe agent), not for bulk loads (use fit()).
//
// Incremental learning, lazy (exact_add = false): add() routes one observation to its leaf and
// updates the counts on its path; when the leaf has grown by `retrain_growth` since it was last
// trained, that leaf's subtree is rebuilt from the leaf's observations. Splits above the leaf are
// never revisited, so the tree equals the batch tree only when the batch tree has the same splits
// above each retrained leaf and every leaf was retrained after its last observation. retrain()
// rebuilds the whole tree from all observations and always equals fit() on them.
//
// Numeric attributes are dictionary-encoded; with at most `max_bins` distinct values every value is
// a candidate threshold (exact CART); above that, values are grouped into about `max_bins`
// equal-count bins and only bin boundaries are candidates. Bins are computed from the rows of each
// build (the whole table, or a retrained leaf's rows).
//
// Threads: const methods may run concurrently; add/fit/retrain need exclusive access.
// Failure: wb::InputError for observations that do not match the schema, non-positive or
// non-finite expected/observed values, bad options or malformed JSON.
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

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
  int max_bins = 1024;           // candidate thresholds per numeric attribute, see above
  double retrain_growth = 0.25;  // lazy add(): retrain a leaf when it grew by this fraction
  bool exact_add = true;         // add() keeps the tree equal to fit() on all observations, see above

  bool operator==(const ZCartOptions&) const = default;
};

struct ZCartPrediction {
  double value = 0;       // expected * correction
  double correction = 1;  // the leaf's learned ratio observed/expected
  double fidelity = 0;    // fraction of the leaf's observations predicted within tolerance; NaN if n = 0
  double spread = 0;      // standard deviation of the leaf's ratios, times expected
  std::uint64_t n = 0;    // observations in the leaf
  std::string rule;       // e.g. "threads > 32 and disks <= 2"; "" for the root
};

// Dictionary-encoded observations (row-major codes, ratio observed/expected per row).
class ObservationTable {
 public:
  explicit ObservationTable(std::vector<Attribute> schema);
  // Appends one row; values.size() must equal the schema size. Returns the row id.
  std::uint32_t add(const double* values, double expected, double observed);
  std::uint32_t add(const Observation& o);
  void reserve(std::size_t rows);

  std::size_t size() const { return ratio_.size(); }
  std::size_t attributes() const { return schema_.size(); }
  const std::vector<Attribute>& schema() const { return schema_; }
  std::uint32_t code(std::size_t row, std::size_t attr) const { return codes_[row * schema_.size() + attr]; }
  const std::uint32_t* row_codes(std::size_t row) const { return &codes_[row * schema_.size()]; }
  double value_of(std::size_t attr, std::uint32_t code) const;
  double value(std::size_t row, std::size_t attr) const { return value_of(attr, code(row, attr)); }
  double ratio(std::size_t row) const { return ratio_[row]; }
  const double* ratios() const { return ratio_.data(); }
  // Reorders the rows: new row i is old row order[i] (a permutation of 0..size-1). In place.
  void permute(const std::vector<std::uint32_t>& order);
  // Distinct values of a numeric attribute, indexed by code (insertion order).
  const std::vector<double>& dictionary(std::size_t attr) const { return dict_values_[attr]; }

 private:
  std::vector<Attribute> schema_;
  std::vector<std::uint32_t> codes_;
  std::vector<double> ratio_;
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
  // Incremental, see the header comment. A tree restored from JSON without its observations only
  // counts (lazily), whatever exact_add says.
  void add(const Observation& observation);
  // Rebuilds the whole tree from every observation held (equals fit() on them).
  void retrain();

  // values: one per schema attribute. Walks the tree; O(depth), no allocation but the rule text,
  // which is built only when with_rule.
  ZCartPrediction predict(const std::vector<double>& values, double expected = 1.0,
                          bool with_rule = true) const;
  // expected * correction only, without building the rule text.
  double predict_value(const double* values, double expected = 1.0) const;

  std::string describe() const;
  // The tree, its leaf statistics and (if with_observations) every observation. A tree restored
  // without observations predicts and counts add()ed observations in its leaves, but retrains a
  // leaf only once it holds all of that leaf's observations (i.e. never for persisted leaves);
  // retrain() then rebuilds from the observations it holds.
  // JSON keeps ratios (observed/expected), not the separate expected and observed values.
  nlohmann::json to_json(bool with_observations = true) const;
  static ZCart from_json(const nlohmann::json& j);

  std::size_t node_count() const { return nodes_.size(); }
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
