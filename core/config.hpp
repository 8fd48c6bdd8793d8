#pragma once
#include <toml++/toml.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/factor.hpp"
#include "core/peak_region.hpp"
#include "core/queue_network.hpp"
#include "core/sample.hpp"
#include "core/target.hpp"

namespace wb {

class ConfigSection;

// How the accuracy test that ends a search guards against optional stopping ([peak] sequential).
enum class Sequential { kBonferroni, kNone };

// How a search picks each load's runlength r ([peak] runlength, policies/runlength.hpp).
enum class RunlengthKind { kFixed, kAdaptive };
// "fixed" or "adaptive"; nullopt for anything else.
std::optional<RunlengthKind> parse_runlength_kind(std::string_view text);
std::string_view to_string(RunlengthKind kind);

// The peak-rate region and the limits of one search, from [peak] [003 §3.3, Table 2].
struct PeakConfig {
  // R_sat: the mean response time the expectation models place the peak at (required). The
  // region is on the mean at R_sat, or with `percentile` on that percentile at L_sat (l_sat_ms).
  double r_sat_ms = 0;
  PeakRegion region;                 // what every search steers on and claims (core/peak_region.hpp)
  Target target;                     // default target when --target is not given
  std::string policy = "binsearch";  // a picker name (policies/pickers.cpp), checked where it is used
  std::string policy_where;          // "FILE:LINE:peak.policy" when the config sets it
  double start_rate = 50;            // first test load, requests/s [003 Alg. 3]
  double runlength_s = 60;           // r per trial
  int min_trials = 2;                // per load (>= 2: a CI needs two)
  int max_trials = 30;               // per load, then the load is given up as "budget"
  int max_loads = 40;                // test loads per search
  double budget_s = 0;               // total cost cap per search, 0 = none
  // How the accuracy test that ends a search is protected against optional stopping: "bonferroni"
  // (default) looks at trial counts growing by `look_growth` from `peak_min_trials`, each at 1-(1-c)/K
  // (docs/decisions.md#claim-looks); "none": the CI at c after every trial, as [003 Alg. 2].
  Sequential sequential = Sequential::kBonferroni;
  int peak_min_trials = 3;
  double look_growth = 1.5;
  double min_throughput_ratio = 0.99;  // completed/sent, or achieved/offered, below this => saturated
  double max_error_ratio = 0.01;       // errors/sent above this => saturated
  // Load pickers and runlength [003 §3.1-3.7] (policies/).
  double linear_step = 10;            // linear increment, requests/s [003 §3.5]
  double strawman_step = 10;          // strawman increment, requests/s (the key defaults to linear_step)
  double strawman_runlength_s = 300;  // strawman: fixed r [003 §3.1]
  int strawman_trials = 10;           // strawman: fixed t per load [003 §3.1]
  RunlengthKind runlength = RunlengthKind::kFixed;  // fixed: runlength_s
  double min_runlength_s = 5;                       // adaptive runlength bounds
  double max_runlength_s = 600;
  double seed_step = 1.25;  // first step factor of a seeded search (model-safe)
};

// The simulated testbed, from [sim].
struct SimConfig {
  QueueNetwork network;
  double warmup_s = 10;   // virtual warm-up excluded from each trial's measurement
  double overhead_s = 0;  // per-trial overhead added to cost (restart, settle)
  std::uint64_t seed = 1;
};

// A loaded, validated testbed config. Sections other layers own ([sut], [[hosts]], [workload])
// stay available through root()/section() and are validated by their layer's parser.
class Config {
 public:
  // Throws InputError ("FILE:LINE:KEY: ...") for any problem.
  static Config load(const std::string& file);
  // The same from the text of a config; `file` names it in errors and places the store beside it.
  static Config parse(const std::string& text, const std::string& file);

  const std::string& file() const { return file_; }
  const std::string& name() const { return name_; }
  // [testbed] store, resolved against the config's folder; else workbench.db beside the config.
  const std::string& store_path() const { return store_path_; }
  // [testbed] lease_timeout_s: how long another host's controller may go without a heartbeat
  // before its searches, surface points and probes are taken over (experiment/leases.hpp).
  double lease_timeout_s() const { return lease_timeout_s_; }
  const std::vector<Factor>& factors() const { return factors_; }
  const Factor* factor(const std::string& name) const;
  std::vector<std::string> factor_names() const;
  const PeakConfig& peak() const { return peak_; }
  const std::optional<SimConfig>& sim() const { return sim_; }
  const std::optional<QueueNetwork>& model() const { return model_; }
  const toml::table& root() const { return *root_; }

  // The sample where every factor takes its default level (its `default`, else its first level).
  Sample default_sample() const;
  // Parses "k=v,..." (may be empty) on top of the default sample.
  Sample sample(const std::string& set) const;
  // The same, also taking any number for a numeric factor (whatif, sim truth): a point between or
  // beyond the declared levels.
  Sample point(const std::string& set) const;

 private:
  static Config from_toml(toml::table table, const std::string& file);

  std::string file_;
  std::string name_;
  std::string store_path_;
  double lease_timeout_s_ = 15;
  std::vector<Factor> factors_;
  std::vector<std::string> defaults_;
  PeakConfig peak_;
  std::optional<SimConfig> sim_;
  std::optional<QueueNetwork> model_;
  std::shared_ptr<toml::table> root_;
};

}  // namespace wb
