#include "core/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>

#include "core/config_section.hpp"
#include "core/error.hpp"
#include "core/trial_limits.hpp"

namespace wb {

std::optional<RunlengthKind> parse_runlength_kind(std::string_view text) {
  if (text == "fixed") return RunlengthKind::kFixed;
  if (text == "adaptive") return RunlengthKind::kAdaptive;
  return std::nullopt;
}

std::string_view to_string(RunlengthKind kind) {
  return kind == RunlengthKind::kAdaptive ? "adaptive" : "fixed";
}

namespace {

const char* const kTopLevel[] = {"testbed", "hosts", "sut", "workload", "factors",
                                 "peak",    "model", "sim", "slots",    "probing"};

Factor parse_factor(ConfigSection& t, const std::string& name, std::string* default_level) {
  Factor f;
  f.name = name;
  std::string kind = t.string_or("kind", "configuration");
  if (kind == "workload" || kind == "W")
    f.kind = FactorKind::kWorkload;
  else if (kind == "resource" || kind == "R")
    f.kind = FactorKind::kResource;
  else if (kind == "configuration" || kind == "C")
    f.kind = FactorKind::kConfiguration;
  else
    t.fail("kind", "must be workload, resource or configuration (W, R, C)");
  const toml::node* levels = t.raw("levels");
  if (levels == nullptr) t.fail("levels", "required key is missing");
  const toml::array* a = levels->as_array();
  if (a == nullptr || a->empty()) t.fail("levels", "must be a non-empty array of numbers or of strings");
  f.numeric = a->front().is_number();
  for (const auto& e : *a) {
    if (f.numeric && e.is_number()) {
      double v = *e.value<double>();
      if (!std::isfinite(v)) t.fail("levels", fmt::format("every level must be a finite number (got {})", v));
      f.numeric_levels.push_back(v);
      f.levels.push_back(format_number(v));
    } else if (!f.numeric && e.is_string()) {
      f.levels.push_back(*e.value<std::string>());
    } else {
      t.fail("levels", "must be all numbers or all strings");
    }
    for (std::size_t i = 0; i + 1 < f.levels.size(); ++i) {
      if (f.levels[i] == f.levels.back())
        t.fail("levels", fmt::format("level '{}' appears twice", f.levels.back()));
    }
  }
  f.between = t.boolean_or("between", false);
  if (f.between && !f.numeric) t.fail("between", "only a numeric factor has values between its levels");
  *default_level = f.levels.front();
  if (t.has("default")) {
    const toml::node* d = t.raw("default");
    std::string text = d->is_string()   ? *d->value<std::string>()
                       : d->is_number() ? format_number(*d->value<double>())
                                        : std::string();
    auto idx = f.find_level(text);
    if (!idx) t.fail("default", fmt::format("'{}' is not one of the levels", text));
    *default_level = f.levels[*idx];
  }
  t.finish();
  return f;
}

// Rules that name a ceiling of core/trial_limits.hpp.
const std::string kRateRule = fmt::format("must be a positive rate in requests/s, at most {:g}", kMaxRate);
const std::string kSecondsRule =
    fmt::format("must be a positive number of seconds, at most {:g}", kMaxSeconds);
const std::string kTrialsRule =
    fmt::format("must be from 2 (a confidence interval needs two trials) to {}", kMaxTrialCount);
const std::string kMsRule = fmt::format("must be a positive time in ms, at most {:g}", kMaxSeconds * 1000);

// r_sat_ms, width and the optional percentile with its l_sat_ms: the peak-rate region.
void parse_region(ConfigSection& p, PeakConfig& c) {
  const Bounds fraction{0, 1, true, true, "must be between 0 and 1, e.g. 0.95"};
  c.r_sat_ms = p.number("r_sat_ms", Bounds::positive(kMaxSeconds * 1000, kMsRule));
  c.region.sat_ms = c.r_sat_ms;
  c.region.width =
      p.number("width", {0, 1, true, true, "must be between 0 and 1 (s of [003 §3.3], e.g. 0.10)"});
  if (p.has("percentile")) {
    const double q = p.number("percentile", fraction);
    const auto metric = percentile_metric(q);
    if (!metric) p.fail("percentile", "must be 0.5, 0.9, 0.95 or 0.99 (the percentiles every trial reports)");
    c.region.metric = *metric;
    c.region.sat_ms = p.number("l_sat_ms", Bounds::positive(kMaxSeconds * 1000, kMsRule));
  }
}

// min_trials, max_trials, peak_min_trials, max_loads and sequential: how many trials a load takes.
void parse_trial_counts(ConfigSection& p, PeakConfig& c) {
  c.min_trials = p.integer_or("min_trials", c.min_trials, 2, kMaxTrialCount, kTrialsRule);
  // A default below a bound another key raised follows that bound (min_trials = 40 makes max_trials
  // 40, not 30): the defaults must satisfy the same rules as the values a config gives.
  c.max_trials =
      p.integer_or("max_trials", std::max(c.max_trials, c.min_trials), c.min_trials, kMaxTrialCount,
                   fmt::format("must be from min_trials ({}) to {}", c.min_trials, kMaxTrialCount));
  c.max_loads = p.integer_or("max_loads", c.max_loads, 1, kMaxTrialCount,
                             fmt::format("must be from 1 to {}", kMaxTrialCount));
  const std::string sequential = p.string_or("sequential", "bonferroni");
  if (sequential != "bonferroni" && sequential != "none")
    p.fail("sequential", "must be \"bonferroni\" or \"none\"");
  c.sequential = sequential == "none" ? Sequential::kNone : Sequential::kBonferroni;
  c.peak_min_trials = p.integer_or(
      "peak_min_trials", std::clamp(c.peak_min_trials, c.min_trials, c.max_trials), c.min_trials,
      c.max_trials,
      fmt::format("must be from min_trials ({}) to max_trials ({})", c.min_trials, c.max_trials));
}

PeakConfig parse_peak(ConfigSection& p) {
  PeakConfig c;
  const Bounds rate = Bounds::positive(kMaxRate, kRateRule);
  const Bounds seconds = Bounds::positive(kMaxSeconds, kSecondsRule);
  parse_region(p, c);
  if (auto t = p.optional_string("target")) {
    try {
      c.target = Target::parse(*t);
    } catch (const InputError& e) {
      p.fail("target", e.what());
    }
  }
  c.policy = p.string_or("policy", c.policy);
  if (p.has("policy")) c.policy_where = p.where("policy");
  c.start_rate = p.number_or("start_rate", c.start_rate, rate);
  c.runlength_s = p.number_or("runlength_s", c.runlength_s, seconds);
  parse_trial_counts(p, c);
  const double max_budget = kMaxSeconds * 1000;
  c.budget_s = p.number_or(
      "budget_s", c.budget_s,
      Bounds::non_negative(
          max_budget,
          fmt::format("must be 0 (no cap) or a positive number of seconds, at most {:g}", max_budget)));
  c.look_growth =
      p.number_or("look_growth", c.look_growth, {1, 100, true, false, "must be greater than 1, at most 100"});
  c.min_throughput_ratio =
      p.number_or("min_throughput_ratio", c.min_throughput_ratio, {0, 1, true, false, "must be in (0, 1]"});
  c.max_error_ratio =
      p.number_or("max_error_ratio", c.max_error_ratio, {0, 1, false, true, "must be in [0, 1)"});
  c.linear_step = p.number_or("linear_step", c.linear_step, rate);
  // [003 §3.1] runs the strawman with "a small increment to produce an accurate result": its λ* is
  // the last load before saturation, so it lies in the peak-rate region only if the step is below
  // the region's lower half in requests/s ([λ(R_sat(1 − s)), λ(R_sat)]).
  c.strawman_step = p.number_or("strawman_step", c.linear_step, rate);
  c.strawman_runlength_s = p.number_or("strawman_runlength_s", c.strawman_runlength_s, seconds);
  c.strawman_trials = p.integer_or("strawman_trials", c.strawman_trials, 2, kMaxTrialCount, kTrialsRule);
  const std::optional<RunlengthKind> runlength =
      parse_runlength_kind(p.string_or("runlength", std::string(to_string(c.runlength))));
  if (!runlength) p.fail("runlength", "must be \"fixed\" or \"adaptive\"");
  c.runlength = *runlength;
  c.min_runlength_s = p.number_or("min_runlength_s", c.min_runlength_s, seconds);
  c.max_runlength_s = p.number_or(
      "max_runlength_s", std::max(c.max_runlength_s, c.min_runlength_s),
      {c.min_runlength_s, kMaxSeconds, false, false,
       fmt::format("must be at least min_runlength_s ({:g}), at most {:g}", c.min_runlength_s, kMaxSeconds)});
  c.seed_step =
      p.number_or("seed_step", c.seed_step, {1, 1000, true, false, "must be greater than 1, at most 1000"});
  p.finish();
  return c;
}

}  // namespace

Config Config::load(const std::string& file) { return from_toml(parse_toml_file(file), file); }

Config Config::parse(const std::string& text, const std::string& file) {
  return from_toml(parse_toml_text(text, file), file);
}

Config Config::from_toml(toml::table table, const std::string& file) {
  Config c;
  c.file_ = file;
  c.root_ = std::make_shared<toml::table>(std::move(table));
  ConfigSection root(*c.root_, file, "");
  for (const auto& k : root.keys()) {
    if (std::find(std::begin(kTopLevel), std::end(kTopLevel), k) == std::end(kTopLevel)) {
      root.fail(k, "unknown section");
    }
  }

  std::filesystem::path dir = std::filesystem::path(file).parent_path();
  c.store_path_ = (dir / "workbench.db").string();
  c.name_ = std::filesystem::path(file).stem().string();
  if (auto tb = root.table("testbed")) {
    c.name_ = tb->string_or("name", c.name_);
    if (auto s = tb->optional_string("store")) {
      std::filesystem::path p(*s);
      c.store_path_ = p.is_absolute() ? p.string() : (dir / p).string();
    }
    // Below a second the heartbeat (a fifth of it) would write the store constantly; a day is
    // what the old probe lock waited, and longer only hides a dead controller.
    c.lease_timeout_s_ =
        tb->number_or("lease_timeout_s", c.lease_timeout_s_,
                      {1, 86400, false, false, "must be a number of seconds from 1 to 86400"});
    tb->finish();
  }

  if (auto fs = root.table("factors")) {
    for (const auto& name : fs->keys()) {
      auto t = fs->table(name);
      if (!t) fs->fail(name, "a factor must be a table: [factors." + name + "] with levels = [...]");
      std::string def;
      c.factors_.push_back(parse_factor(*t, name, &def));
      c.defaults_.push_back(def);
    }
  }

  auto peak = root.table("peak");
  if (!peak) root.fail_here("missing [peak] section (r_sat_ms and width are required)");
  c.peak_ = parse_peak(*peak);

  if (auto sim = root.table("sim")) {
    SimConfig s;
    const Bounds pause = Bounds::non_negative(
        kMaxSeconds, fmt::format("must not be negative, and at most {:g} seconds", kMaxSeconds));
    s.warmup_s = sim->number_or("warmup_s", s.warmup_s, pause);
    s.overhead_s = sim->number_or("overhead_s", s.overhead_s, pause);
    s.seed = static_cast<std::uint64_t>(sim->integer_or<std::int64_t>(
        "seed", 1, 0, INT64_MAX, "must be a whole number >= 0 (the random seed)"));
    s.network = parse_queue_network(*sim, c.factors_);
    sim->finish();
    c.sim_ = std::move(s);
  }
  if (auto model = root.table("model")) {
    c.model_ = parse_queue_network(*model, c.factors_);
    model->finish();
  }
  return c;
}

const Factor* Config::factor(const std::string& name) const {
  for (const auto& f : factors_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> Config::factor_names() const {
  std::vector<std::string> out;
  for (const auto& f : factors_) out.push_back(f.name);
  return out;
}

Sample Config::default_sample() const {
  Sample s;
  for (std::size_t i = 0; i < factors_.size(); ++i) s.set(factors_[i].name, defaults_[i]);
  return s;
}

Sample Config::sample(const std::string& set) const { return parse_sample(set, factors_, default_sample()); }

Sample Config::point(const std::string& set) const {
  return parse_sample(set, factors_, default_sample(), SampleValues::kNumbers);
}

}  // namespace wb
