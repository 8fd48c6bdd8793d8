#include "experiment/progress_line.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace wb {

void TrialDurationEstimate::finished(double runlength_s, double wall_s) {
  overhead_sum_s_ += wall_s - runlength_s;
  ++trials_;
}

std::optional<double> TrialDurationEstimate::expected_s(double runlength_s) const {
  if (trials_ == 0) return std::nullopt;
  // A simulated trial takes far less wall time than its runlength: its overhead is negative, and
  // so the expected wall time is about what it took.
  return std::max(0.0, runlength_s + overhead_sum_s_ / trials_);
}

std::string format_progress(const TrialProgress& p, std::size_t max_width) {
  const std::string expected =
      p.trial_expected_s ? fmt::format("{:.0f}", *p.trial_expected_s) : fmt::format("{:g}+", p.runlength_s);
  std::string line = fmt::format(
      "{}  load {:.1f}/s  trial {} ({:g} s)  {:.0f}/{} s  elapsed {:.0f} s  cost so far {:.0f} s", p.sample,
      p.rate, p.trial, p.runlength_s, p.trial_elapsed_s, expected, p.elapsed_s, p.cost_s);
  if (max_width > 0 && line.size() > max_width) line.resize(max_width);
  return line;
}

}  // namespace wb
