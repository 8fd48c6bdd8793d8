// I/O classification [004 "I/O Classification", "Creating Models from Benchmarks"]: KDE clusters of
// log access time per class and access size, one weighted least-squares line per cluster rank, and
// maximum-likelihood labels.
#include "models/io_classify.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <set>

#include <fmt/format.h>
#include <Eigen/Dense>

#include "core/error.hpp"

namespace wb {
namespace {

constexpr double kMinSeconds = 1e-9;              // no trace resolves less than a nanosecond
constexpr double kBytesPerMiB = 1024.0 * 1024.0;  // sizes in MiB keep the least-squares columns balanced

double log_time(double seconds) { return std::log(std::max(seconds, kMinSeconds)); }

// The ops of one access size that fall in one KDE cluster.
struct SizeCluster {
  std::uint64_t size = 0;
  std::vector<double> log_t;  // ascending
  double median_log = 0;
};

double median_of_sorted(const std::vector<double>& v) {
  std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Splits one size's log times at the KDE's cluster boundaries [004 "Analyzing a Single Benchmark":
// histograms hide the long tail]. Log time: cache hits and seeks differ 100-fold and the noise is
// multiplicative, so one bandwidth fits every cluster and the tail is not one smear. A cluster under
// min_cluster_share of the ops joins the neighbour whose median is nearer (stragglers get no line).
std::vector<SizeCluster> split_size(std::uint64_t size, std::vector<double> log_t,
                                    const IoClassifierOptions& o) {
  std::sort(log_t.begin(), log_t.end());
  std::vector<std::vector<double>> parts(1);
  if (log_t.size() >= o.min_ops_per_size) {
    Kde kde = estimate_density(log_t, o.kde);
    parts.assign(kde.boundaries.size() + 1, {});
    for (double v : log_t) parts[kde.cluster_of(v)].push_back(v);
    std::erase_if(parts, [](const auto& p) { return p.empty(); });
  } else {
    parts[0] = std::move(log_t);
  }
  auto total = static_cast<double>(std::accumulate(
      parts.begin(), parts.end(), std::size_t{0}, [](std::size_t s, const auto& p) { return s + p.size(); }));
  while (parts.size() > 1) {
    auto smallest =
        std::min_element(parts.begin(), parts.end(), [](auto& a, auto& b) { return a.size() < b.size(); });
    if (static_cast<double>(smallest->size()) >= o.min_cluster_share * total) break;
    auto i = static_cast<std::size_t>(smallest - parts.begin());
    bool left =
        i + 1 == parts.size() || (i > 0 && median_of_sorted(parts[i]) - median_of_sorted(parts[i - 1]) <
                                               median_of_sorted(parts[i + 1]) - median_of_sorted(parts[i]));
    std::size_t into = left ? i - 1 : i + 1;
    parts[into].insert(parts[into].end(), parts[i].begin(), parts[i].end());
    std::sort(parts[into].begin(), parts[into].end());
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(i));
  }
  std::vector<SizeCluster> out;
  out.reserve(parts.size());
  for (auto& p : parts) out.push_back({size, std::move(p), 0.0});
  for (auto& c : out) c.median_log = median_of_sorted(c.log_t);
  return out;
}

// time = a + b·size by least squares weighted 1/m² (m the cluster's median time): the noise is
// multiplicative [004: durations grow linearly in size], so unweighted 1 MiB ops would set the
// intercept 4 KiB ops depend on. a and b stay ≥ 0: a negative one refits without it.
IoCluster fit_line(const std::vector<const SizeCluster*>& members) {
  std::size_t n = 0;
  std::set<std::uint64_t> sizes;
  for (const SizeCluster* c : members) {
    n += c->log_t.size();
    sizes.insert(c->size);
  }
  Eigen::MatrixXd x(static_cast<Eigen::Index>(n), 2);
  Eigen::VectorXd y(static_cast<Eigen::Index>(n));
  Eigen::Index row = 0;
  for (const SizeCluster* c : members) {
    double w = std::exp(-c->median_log);  // sqrt of the weight 1/m²
    for (double lt : c->log_t) {
      x(row, 0) = w;
      x(row, 1) = w * static_cast<double>(c->size) / kBytesPerMiB;
      y(row++) = w * std::exp(lt);
    }
  }
  double a = 0, b = 0;
  if (sizes.size() >= 2) {
    Eigen::Vector2d ab = x.colPivHouseholderQr().solve(y);
    a = ab(0);
    b = ab(1);
  }
  if (sizes.size() < 2 || b < 0) {  // a constant
    a = x.col(0).dot(y) / x.col(0).squaredNorm();
    b = 0;
  } else if (a < 0) {  // through the origin
    a = 0;
    b = x.col(1).dot(y) / x.col(1).squaredNorm();
  }
  IoCluster line;
  line.intercept_s = a;
  line.seconds_per_byte = b / kBytesPerMiB;
  line.min_size = *sizes.begin();
  line.max_size = *sizes.rbegin();
  return line;
}

double log_predicted(const IoCluster& c, std::uint64_t size) { return log_time(c.predict_s(size)); }

// Fills ops and log_sd of a fitted line from its members.
void add_spread(IoCluster& line, const std::vector<const SizeCluster*>& members, double min_log_sd) {
  double sum_sq = 0;
  std::uint64_t n = 0;
  for (const SizeCluster* c : members) {
    double pred = log_predicted(line, c->size);
    for (double lt : c->log_t) sum_sq += (lt - pred) * (lt - pred);
    n += c->log_t.size();
  }
  line.ops = n;
  line.log_sd = std::max(min_log_sd, std::sqrt(sum_sq / static_cast<double>(n)));
}

// The number of clusters most ops see: sizes showing that many seed one line per rank.
std::size_t usual_cluster_count(const std::vector<std::vector<SizeCluster>>& by_size) {
  std::map<std::size_t, std::size_t> ops_by_count;
  for (const auto& clusters : by_size)
    for (const SizeCluster& c : clusters) ops_by_count[clusters.size()] += c.log_t.size();
  return std::max_element(ops_by_count.begin(), ops_by_count.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

// [004 "Creating Models from Benchmarks"] Lines across sizes: sizes with the usual number K of clusters
// link them by rank into K lines; then every cluster of every size joins the line that predicts its
// median best, and the lines are refitted once.
IoClass fit_class(const CalibrationSet& set, const IoClassifierOptions& o) {
  std::map<std::uint64_t, std::vector<double>> log_by_size;
  for (const IoOp& op : set.ops) log_by_size[op.size].push_back(log_time(op.duration_s));
  std::vector<std::vector<SizeCluster>> by_size;
  by_size.reserve(log_by_size.size());
  for (auto& [size, logs] : log_by_size) by_size.push_back(split_size(size, std::move(logs), o));
  std::size_t k = usual_cluster_count(by_size);
  std::vector<std::vector<const SizeCluster*>> ranks(k);
  for (const auto& clusters : by_size)
    if (clusters.size() == k)
      for (std::size_t r = 0; r < k; ++r) ranks[r].push_back(&clusters[r]);
  std::vector<IoCluster> seeds;
  seeds.reserve(k);
  for (const auto& members : ranks) seeds.push_back(fit_line(members));
  std::vector<std::vector<const SizeCluster*>> joined(k);
  for (const auto& clusters : by_size)
    for (const SizeCluster& c : clusters) {
      auto best = std::min_element(seeds.begin(), seeds.end(), [&](const IoCluster& a, const IoCluster& b) {
        return std::abs(c.median_log - log_predicted(a, c.size)) <
               std::abs(c.median_log - log_predicted(b, c.size));
      });
      joined[static_cast<std::size_t>(best - seeds.begin())].push_back(&c);
    }
  IoClass out{set.name, {}};
  for (const auto& members : joined) {
    if (members.empty()) continue;
    IoCluster line = fit_line(members);
    add_spread(line, members, o.min_log_sd);
    line.share = static_cast<double>(line.ops) / static_cast<double>(set.ops.size());
    out.clusters.push_back(line);
  }
  std::uint64_t smallest = log_by_size.begin()->first;
  std::sort(out.clusters.begin(), out.clusters.end(), [&](const IoCluster& a, const IoCluster& b) {
    return a.predict_s(smallest) < b.predict_s(smallest);
  });
  return out;
}

// A field of the classifier's JSON, with the path the error names.
template <typename T>
T field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key))
    throw InputError(fmt::format("io classifier: {}: missing \"{}\"", where, key));
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(fmt::format("io classifier: {}: \"{}\" has the wrong type", where, key));
  }
}

IoCluster cluster_from_json(const nlohmann::json& j, const std::string& where) {
  IoCluster c;
  c.intercept_s = field<double>(j, "intercept_s", where);
  c.seconds_per_byte = field<double>(j, "seconds_per_byte", where);
  c.log_sd = field<double>(j, "log_sd", where);
  c.share = field<double>(j, "share", where);
  c.ops = field<std::uint64_t>(j, "ops", where);
  c.min_size = field<std::uint64_t>(j, "min_size", where);
  c.max_size = field<std::uint64_t>(j, "max_size", where);
  bool valid = std::isfinite(c.intercept_s) && c.intercept_s >= 0 && std::isfinite(c.seconds_per_byte) &&
               c.seconds_per_byte >= 0 && std::isfinite(c.log_sd) && c.log_sd > 0 && c.share > 0 &&
               c.share <= 1;
  if (!valid)
    throw InputError(fmt::format(
        "io classifier: {}: needs intercept_s >= 0, seconds_per_byte >= 0, log_sd > 0 and 0 < share <= 1",
        where));
  return c;
}

}  // namespace

IoClassifier IoClassifier::calibrate(std::span<const CalibrationSet> sets,
                                     const IoClassifierOptions& options) {
  if (sets.empty()) throw InputError("io classifier: no calibration set");
  std::set<std::string> names;
  IoClassifier out;
  for (const CalibrationSet& s : sets) {
    if (s.name.empty()) throw InputError("io classifier: a calibration set has no name");
    if (!names.insert(s.name).second)
      throw InputError(fmt::format("io classifier: class {} given twice", s.name));
    if (s.ops.empty()) throw InputError(fmt::format("io classifier: class {} has no operation", s.name));
    out.classes_.push_back(fit_class(s, options));
  }
  return out;
}

IoLabel IoClassifier::classify(const IoOp& op) const {
  double lt = log_time(op.duration_s);
  IoLabel best;
  double best_score = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < classes_.size(); ++i)
    for (std::size_t k = 0; k < classes_[i].clusters.size(); ++k) {
      const IoCluster& c = classes_[i].clusters[k];
      double r = lt - log_predicted(c, op.size);
      double z = r / c.log_sd;
      double score = std::log(c.share) - std::log(c.log_sd) - z * z / 2;
      if (score > best_score) {
        best_score = score;
        best = {i, k, r};
      }
    }
  return best;
}

std::vector<IoLabel> IoClassifier::classify(std::span<const IoOp> ops) const {
  std::vector<IoLabel> out;
  out.reserve(ops.size());
  for (const IoOp& op : ops) out.push_back(classify(op));
  return out;
}

std::map<std::string, double> IoClassifier::shares(std::span<const IoOp> ops) const {
  std::vector<std::size_t> counts(classes_.size(), 0);
  for (const IoOp& op : ops) ++counts[classify(op).class_index];
  std::map<std::string, double> out;
  for (std::size_t i = 0; i < classes_.size(); ++i)
    out[classes_[i].name] =
        ops.empty() ? 0.0 : static_cast<double>(counts[i]) / static_cast<double>(ops.size());
  return out;
}

nlohmann::json IoClassifier::to_json() const {
  nlohmann::json classes = nlohmann::json::array();
  for (const IoClass& c : classes_) {
    nlohmann::json clusters = nlohmann::json::array();
    for (const IoCluster& k : c.clusters)
      clusters.push_back({{"intercept_s", k.intercept_s},
                          {"seconds_per_byte", k.seconds_per_byte},
                          {"log_sd", k.log_sd},
                          {"share", k.share},
                          {"ops", k.ops},
                          {"min_size", k.min_size},
                          {"max_size", k.max_size}});
    classes.push_back({{"name", c.name}, {"clusters", clusters}});
  }
  return {{"kind", "io_classifier"}, {"version", 1}, {"classes", classes}};
}

IoClassifier IoClassifier::from_json(const nlohmann::json& j) {
  if (field<std::string>(j, "kind", "top level") != "io_classifier" ||
      field<int>(j, "version", "top level") != 1)
    throw InputError("io classifier: not an io_classifier of version 1");
  auto classes = field<nlohmann::json>(j, "classes", "top level");
  if (!classes.is_array() || classes.empty())
    throw InputError("io classifier: \"classes\" must be a non-empty array");
  IoClassifier out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    std::string where = fmt::format("classes[{}]", i);
    IoClass c{field<std::string>(classes[i], "name", where), {}};
    if (c.name.empty() || !names.insert(c.name).second)
      throw InputError(fmt::format("io classifier: {}: empty or repeated name", where));
    auto clusters = field<nlohmann::json>(classes[i], "clusters", where);
    if (!clusters.is_array() || clusters.empty())
      throw InputError(fmt::format("io classifier: {}: \"clusters\" must be a non-empty array", where));
    for (std::size_t k = 0; k < clusters.size(); ++k)
      c.clusters.push_back(cluster_from_json(clusters[k], fmt::format("{}.clusters[{}]", where, k)));
    out.classes_.push_back(std::move(c));
  }
  return out;
}

std::map<std::string, double> io_class_attributes(const IoClassifier& classifier, std::span<const IoOp> ops) {
  std::map<std::string, double> out;
  for (const auto& [name, share] : classifier.shares(ops)) out[name + "_fraction"] = share;
  return out;
}

IoClassifier read_classifier(const std::string& path) {
  std::ifstream in(path);
  if (!in.is_open()) throw InputError(fmt::format("{}: cannot open the classifier", path));
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) throw InputError(fmt::format("{}: not JSON", path));
  try {
    return IoClassifier::from_json(j);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace wb
