#pragma once
// What the expectation side keeps: the simulator's cached truths, the expectation stored with each
// search [000 §2.1], calibrated demands [000 §4.1.1] and the Z-CART tree of a testbed [000 §3.3.1].
// One part of store::Store (store/store.hpp), over the database handle the store owns.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/sample.hpp"

namespace wb::store {

class Database;

class ModelStore {
 public:
  explicit ModelStore(Database& db) : db_(db) {}

  struct TruthRow {
    double peak_rate = 0, region_low = 0, region_high = 0;
  };
  std::optional<TruthRow> find_truth(const std::string& testbed, const std::string& sample,
                                     const std::string& hash);
  void put_truth(const std::string& testbed, const std::string& sample, const std::string& hash,
                 const TruthRow& t);

  // The expectation model's answer for a search's sample, stored with the search [000 §2.1].
  struct ExpectationRow {
    std::int64_t search_id = 0;
    std::optional<double> peak_rate;        // nullopt: unbounded
    std::optional<double> saturation_rate;  // nullopt: unbounded
    std::string bottleneck;
    std::string calibrated_json = "[]";
    std::string detail_json = "{}";
  };
  void put_expectation(const ExpectationRow& e);  // replaces an earlier one of the same search
  std::optional<ExpectationRow> expectation(std::int64_t search_id);

  // A demand measured on a testbed, per visit of one center [000 §4.1.1].
  struct CalibrationRow {
    std::string testbed;
    std::string center;
    Sample sample;
    double demand_ms = 0;
    std::optional<double> visits;
    std::string source;
    std::string created_at;  // set by the store
  };
  void add_calibration(const CalibrationRow& c);
  // Every calibration of `testbed`, oldest first.
  std::vector<CalibrationRow> calibrations(const std::string& testbed);

  // The persisted Z-CART tree of a testbed [000 §3.3.1]: ZCart::to_json() text.
  void put_zcart_tree(const std::string& testbed, const std::string& tree_json, std::int64_t observations);
  std::optional<std::string> zcart_tree(const std::string& testbed);

  // The learned model of a testbed (experiment/model_learning.hpp) with the text of the inputs it
  // was learned from, so a reader can tell whether it is still current.
  struct LearnedModelRow {
    std::string inputs;
    std::string model_json;
  };
  void put_learned_model(const std::string& testbed, const LearnedModelRow& row);
  std::optional<LearnedModelRow> learned_model(const std::string& testbed);

  // The expectation model's λ* at a sample (its key), solved from `inputs` (a hash naming the
  // config and calibrations): outer nullopt when not cached, inner nullopt for an unbounded λ*.
  std::optional<std::optional<double>> cached_expected_peak(const std::string& testbed,
                                                            const std::string& sample,
                                                            const std::string& inputs);
  void put_expected_peak(const std::string& testbed, const std::string& sample, const std::string& inputs,
                         std::optional<double> peak_rate);

 private:
  Database& db_;
};

}  // namespace wb::store
