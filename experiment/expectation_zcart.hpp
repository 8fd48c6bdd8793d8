#pragma once
// The Z-CART answer of `workbench whatif` [000 §3.3.1]: the expectation model's λ* corrected by a
// tree over the testbed's attributes, trained on stored searches that have an expectation (one leaf of
// correction 1 with nothing measured). Uses the probe agent's stored tree when present, else fits one.
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "experiment/expectation_record.hpp"
#include "experiment/zcart_attributes.hpp"
#include "models/probe_plan.hpp"
#include "models/zcart.hpp"
#include "store/store.hpp"

namespace wb {

struct ZCartAnswer {
  double value = 0;  // expected λ* × the leaf's learned correction
  // The prediction interval at kAnswerLevel from the leaf's log residuals and answer_prior
  // (docs/decisions.md#answer-intervals); nullopt when the leaf has none to learn from.
  std::optional<double> low, high;
  std::optional<double> fidelity;  // the leaf's samples predicted within tolerance; nullopt if n = 0
  int n = 0;                       // distinct samples in the leaf (zcart_observations merges repeats)
  std::string rule;                // the leaf's path, e.g. "threads > 8"; "" for the root
  std::optional<double> cap;       // the leaf caps λ* here (a bottleneck the expectation lacks)
  bool persisted = false;          // from the store's tree rather than fitted now
};

// ZCartAttributes(config).schema(): the factors in the config's order, then the workload
// attributes and derived metrics.
std::vector<Attribute> zcart_schema(const Config& config);
// ZCartAttributes(config).encode(sample): one value per attribute; nullopt when the sample has no
// (known) level of some factor or the model gives it no finite λ*. For many samples, build one
// ZCartAttributes and call its encode().
std::optional<std::vector<double>> encode_sample(const Config& config, const Sample& sample);
// Found searches with an expectation and encodable attributes, as tree observations, one per
// sample (the geometric mean of its searches' λ*), in the order of each sample's first search.
std::vector<Observation> zcart_observations(const ZCartAttributes& attributes,
                                            const std::vector<MeasuredVsExpected>& rows);
// The same, each with the sample it was measured at.
struct SampleObservation {
  Sample sample;
  Observation observation;  // expected: the first search's stored expectation
};
std::vector<SampleObservation> sample_observations(const ZCartAttributes& attributes,
                                                   const std::vector<MeasuredVsExpected>& rows);
std::vector<Observation> zcart_observations(const Config& config,
                                            const std::vector<MeasuredVsExpected>& rows);

// Fits the tree to `rows` (see zcart_observations) and predicts for `sample` given its expected
// λ* (> 0).
ZCartAnswer zcart_answer(const Config& config, const std::vector<MeasuredVsExpected>& rows,
                         const Sample& sample, double expected);
// Predicts from a fitted tree; `sample` must be encodable (Error otherwise).
ZCartAnswer zcart_predict(const ZCart& tree, const ZCartAttributes& attributes, const Sample& sample,
                          double expected);
ZCartAnswer zcart_predict(const ZCart& tree, const Config& config, const Sample& sample, double expected);

// The testbed's persisted tree; nullopt when none is stored or its attributes are no longer the
// config's (then the caller refits).
std::optional<ZCart> load_zcart(store::Store& store, const Config& config);
// Fits a tree to every stored observation of the testbed and stores it.
ZCart refit_zcart(store::Store& store, const Config& config, const ZCartOptions& options);

// The persisted tree brought up to date with every stored observation, and stored.
struct ZCartUpdate {
  ZCart tree;
  std::size_t added = 0;  // observations add()ed to the persisted tree
  bool refitted = false;  // no usable persisted tree: fitted from scratch
};
// Brings the persisted tree up to date: exact incremental add() of the stored observations it lacks
// when it was built with `options` from a subset of them, else a refit
// (docs/decisions.md#zcart-attributes).
ZCartUpdate update_zcart(store::Store& store, const Config& config, const ZCartOptions& options);
// The same with the config's attributes (their cached values serve many calls).
ZCartUpdate update_zcart(store::Store& store, const Config& config, const ZCartAttributes& attributes,
                         const ZCartOptions& options);
// The options of the persisted tree: [probing] tolerance and min_leaf, exact incremental add(),
// leaves that keep the expectation judged with the answers' prior spread (answer_prior).
ZCartOptions persisted_zcart_options(const Config& config, const ProbeConfig& probing);
// The persisted tree when it holds every stored observation; when searches were stored after it
// (a later peak or map-surface), that tree with them added (as update_zcart, equal to a fit on
// all of them), not stored. nullopt when no tree was ever stored.
std::optional<ZCart> current_zcart(store::Store& store, const Config& config, const ProbeConfig& probing,
                                   const std::vector<MeasuredVsExpected>& rows);

}  // namespace wb
