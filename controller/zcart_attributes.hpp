#pragma once
// The attributes a testbed's Z-CART tree splits on [000 §3.3.1; issue 8.1]: the factors, workload
// attributes and derived metrics of the expectation model. Every attribute is a function of the
// sample alone (and the config), so it is known for a sample nobody measured: whatif predicts
// there, and a probe's sample has its attributes before it runs.
//
// In schema order:
//   - every factor: a numeric level's number, a categorical level's index;
//   - workload attributes: each [model.attributes.F] NAME (a number per level of F), and, when
//     [workload] mix is a file whose path names exactly one factor and every level's file loads,
//     the mix's read_fraction, write_fraction and sequential_fraction (by operation weight) and
//     mean_size_bytes (weighted mean request size) at the sample's level of that factor;
//   - derived metrics of the expectation model as configured ([model] without calibrations, so an
//     observation's coordinates do not move when `model calibrate` runs; the calibrated λ* is the
//     tree's prior, not a coordinate): expected_peak (λ*, requests/s), bottleneck (categorical:
//     the center with the highest utilization at λ*), bottleneck_util (its utilization there), and
//     for each pool P and center C within P whose server counts both depend on factors, P_per_C
//     (P's tokens per server of C, e.g. nfsd_per_disk = threads / disks).
// An attribute whose name is already taken (a factor, an earlier attribute) is left out, and so
// is a workload attribute with the same value at every level.
//
// Probes vary factors: probe_ranking() maps a ranked workload or derived attribute back to the
// factors it depends on (factors_of), in their own rank order.
//
// Not thread-safe (encode() caches); one per thread.
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
  // The factors attribute `i` depends on, in the config's factor order (a factor: itself).
  const std::vector<std::string>& factors_of(std::size_t i) const { return depends_[i]; }

  // One value per schema attribute; nullopt when the sample has no (known) level of some factor,
  // or the expectation model cannot be solved for it or predicts no finite λ* (then Z-CART, whose
  // prior is that λ*, has nothing to correct).
  std::optional<std::vector<double>> encode(const Sample& sample) const;

 private:
  void add(Attribute a, std::vector<std::string> depends);
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
  mutable std::map<std::string, std::optional<std::vector<double>>> cache_;  // by sample key
};

// The ranking as probes can use it: each ranked attribute in turn, a factor as itself and any
// other attribute as the factors it depends on, these ordered by their own position in `ranked`
// (a factor not ranked goes last, in schema order); every factor once, at its first place; the
// gain is that of the attribute that brought it in. [issue 8.3: probes vary factors]
std::vector<RankedAttribute> probe_ranking(const ZCartAttributes& attributes,
                                           const std::vector<RankedAttribute>& ranked);

}  // namespace wb
