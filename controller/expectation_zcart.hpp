#pragma once
// The Z-CART answer of `workbench whatif` [000 §3.3.1; issue 7.4, 8.1]: the expectation model's λ*
// corrected by a zero-training regression tree (models/zcart.hpp) over the testbed's factors,
// trained on the stored searches whose measured λ* sits next to a stored expectation. With nothing
// measured the tree is one leaf with correction 1: it answers the expectation itself.
//
// The probe agent persists a tree per testbed in the store (refit after every probe); whatif uses
// it when present and fits one on the fly otherwise.
#include <optional>
#include <string>
#include <vector>

#include "controller/expectation_record.hpp"
#include "core/config.hpp"
#include "models/probe_plan.hpp"
#include "models/zcart.hpp"
#include "store/store.hpp"

namespace wb {

struct ZCartAnswer {
  double value = 0;                 // expected λ* × the leaf's learned correction
  std::optional<double> low, high;  // value ± 2 × the leaf's spread (n >= 2)
  std::optional<double> fidelity;   // the leaf's observations predicted within tolerance; nullopt if n = 0
  int n = 0;                        // observations in the leaf
  std::string rule;                 // the leaf's path, e.g. "threads > 8"; "" for the root
  bool persisted = false;           // from the store's tree rather than fitted now
};

// One attribute per factor of the config, in its order.
std::vector<Attribute> zcart_schema(const Config& config);
// One value per factor: the number of a numeric level, the index of a categorical one; nullopt
// when the sample has no (known) level of some factor.
std::optional<std::vector<double>> encode_sample(const Config& config, const Sample& sample);
// Found searches with an expectation and a level of every factor, as tree observations.
std::vector<Observation> zcart_observations(const Config& config,
                                            const std::vector<MeasuredVsExpected>& rows);

// Fits the tree to `rows` (see zcart_observations) and predicts for `sample` given its expected
// λ* (> 0).
ZCartAnswer zcart_answer(const Config& config, const std::vector<MeasuredVsExpected>& rows,
                         const Sample& sample, double expected);
// Predicts from a fitted tree; `sample` must have a level of every factor.
ZCartAnswer zcart_predict(const ZCart& tree, const Config& config, const Sample& sample, double expected);

// The testbed's persisted tree; nullopt when none is stored or its attributes are no longer the
// config's factors (then the caller refits).
std::optional<ZCart> load_zcart(store::Store& store, const Config& config);
// Fits a tree to every stored observation of the testbed and stores it.
ZCart refit_zcart(store::Store& store, const Config& config, const ZCartOptions& options);
// The options of the persisted tree: [probing] tolerance and min_leaf.
ZCartOptions persisted_zcart_options(const ProbeConfig& probing);
// The persisted tree when it holds every stored observation; when searches were stored after it
// (a later peak or map-surface), the same kind of tree fitted now to all of them, not stored.
// nullopt when no tree was ever stored.
std::optional<ZCart> current_zcart(store::Store& store, const Config& config, const ProbeConfig& probing,
                                   const std::vector<MeasuredVsExpected>& rows);

}  // namespace wb
