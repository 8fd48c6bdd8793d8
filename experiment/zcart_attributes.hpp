#pragma once
// The attributes a testbed's Z-CART tree splits on [000 §3.3.1], each a function of sample and config
// alone, so known before a sample runs (docs/decisions.md#zcart-attributes). In schema order:
//   - every factor: a numeric level's number, a categorical level's index;
//   - workload attributes: each [model.attributes.F] NAME, and, when [workload] mix is a file whose
//     path names exactly one factor and every level's file loads, that mix's read_fraction,
//     write_fraction, sequential_fraction (by weight) and mean_size_bytes at the sample's level;
//   - metrics of the expectation model as configured (no calibrations): expected_peak (λ*, 1/s),
//     bottleneck (categorical: the most utilized center at λ*), bottleneck_util, P_per_C (tokens
//     of pool P per server of C within P, both factor-dependent, e.g. nfsd_per_disk), and
//     C_lambda_max (the rate at which queueing center C saturates, when its capacity depends on a
//     factor, e.g. disk_lambda_max);
//   - with [model.storage]: cache_hit_rate and disk_visits, its replay's predictions for the sample,
//     and with a classifier and a trace per level ("{mix}.csv") each I/O class's <class>_fraction.
// Names already taken and workload attributes equal at every level are left out. Not thread-safe
// (encode() caches); one per thread.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/sample.hpp"
#include "models/mismatch.hpp"
#include "models/zcart.hpp"

namespace wb {

class ZCartAttributes {
 public:
  // `config` must outlive this object.
  explicit ZCartAttributes(const Config& config);

  const std::vector<Attribute>& schema() const { return schema_; }
  const Config& config() const { return *config_; }
  // The factors attribute `i` depends on, in the config's factor order (a factor: itself).
  const std::vector<std::string>& factors_of(std::size_t i) const { return depends_[i]; }

  // One value per schema attribute; nullopt when the sample has no (known) level of some factor,
  // or the expectation model cannot be solved for it or predicts no finite λ* (then Z-CART, whose
  // prior is that λ*, has nothing to correct).
  std::optional<std::vector<double>> encode(const Sample& sample) const;

 private:
  void add(Attribute a, std::vector<std::string> depends);
  void add_lambda_max(const std::vector<std::string>& depends);
  std::optional<std::vector<double>> compute(const Sample& sample) const;

  const Config* config_;
  std::vector<Attribute> schema_;
  std::vector<std::vector<std::string>> depends_;
  std::size_t factor_count_ = 0;
  // Workload attributes: (factor, value per level index), in schema order after the factors.
  struct ByLevel {
    std::size_t factor = 0;  // index into config.factors()
    std::vector<double> values;
  };
  std::vector<ByLevel> workload_;
  bool derived_ = false;                                     // expected_peak, bottleneck, bottleneck_util
  std::vector<std::pair<std::string, std::string>> ratios_;  // (pool, center) for P_per_C
  std::vector<std::string> lambda_max_;                      // centers with a C_lambda_max attribute
  bool storage_ = false;                                     // cache_hit_rate, disk_visits
  std::vector<std::string> class_attributes_;                // "<class>_fraction" of the sample's trace
  mutable std::map<std::string, std::optional<std::vector<double>>> cache_;  // by sample key
};

// The ranking as probes can use it [000 §3.3.2]: each ranked attribute in turn, a factor as itself and
// another attribute as its factors in their own ranked order (unranked factors last, schema order);
// each factor once, at its first place, with the gain of the attribute that brought it in.
std::vector<RankedAttribute> probe_ranking(const ZCartAttributes& attributes,
                                           const std::vector<RankedAttribute>& ranked);

}  // namespace wb
