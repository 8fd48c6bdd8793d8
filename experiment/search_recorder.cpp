#include "experiment/search_recorder.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iostream>

namespace wb {

void StoringObserver::on_trial(std::size_t load_index, const TrialResult& t) {
  ++seen_;
  if (seen_ <= replayed_) return;
  store_.add_trial(search_id_, static_cast<int>(load_index), t);
  if (verbose_) {
    std::cerr << fmt::format("trial {} stored: load {} rate {:.1f}/s mean {:.2f} ms\n", seen_, load_index,
                             t.offered_rate, t.mean_ms);
  }
}

void StoringObserver::on_load(std::size_t load_index, const TestLoad& l) {
  // INSERT OR REPLACE: a replayed load is written again with the same content.
  store_.add_load(search_id_, static_cast<int>(load_index), l);
}

void StoringObserver::on_trial_error(double rate, const std::string& what, bool retrying) {
  std::cerr << fmt::format("workbench: trial at {:.6g}/s failed{}: {}\n", rate,
                           retrying ? " (retrying once)" : "", what);
}

std::vector<TestLoad> stored_loads(store::Store& store, std::int64_t search_id, const PeakConfig& peak) {
  std::vector<TestLoad> loads;
  for (const auto& st : store.trials(search_id)) {
    if (loads.empty() || static_cast<int>(loads.size()) - 1 != st.load_index) {
      loads.emplace_back();
      loads.back().rate = st.trial.offered_rate;
    }
    loads.back().saturated = loads.back().saturated || trial_saturated(st.trial, peak);
    loads.back().trials.push_back(st.trial);
  }
  return loads;
}

TrialResult ReplayingRunner::run(const Sample& sample, double rate, double runlength_s,
                                 std::uint64_t trial_index) {
  if (next_ < recorded_.size()) {
    const TrialResult& t = recorded_[next_];
    // The store keeps doubles exactly (REAL is IEEE binary64), so a faithful replay matches bit for bit;
    // the tolerance only absorbs a rate recomputed by a different but equivalent expression.
    auto close = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); };
    if (!close(t.offered_rate, rate) || !close(t.runlength_s, runlength_s)) {
      throw ReplayMismatch(
          fmt::format("cannot resume the search of {}: stored trial {} ran at {:.6g}/s for {:g} s, but the "
                      "search now asks for {:.6g}/s for {:g} s (were its options changed?)",
                      sample.key(), next_ + 1, t.offered_rate, t.runlength_s, rate, runlength_s));
    }
    ++next_;
    return t;
  }
  TrialResult t = live_.run(sample, rate, runlength_s, trial_index);
  ++live_count_;
  return t;
}

}  // namespace wb
