#pragma once
#include <chrono>
#include <cstdint>
#include <functional>

#include "core/trial.hpp"
#include "experiment/progress_line.hpp"

namespace wb {

// SIGINT, SIGTERM and SIGHUP set a flag instead of killing the controller, so that whatever a
// trial started is stopped and the store is left consistent. A second signal restores the default
// action (kill) for a user who really wants out.
void install_interrupt_handlers();
bool interrupt_requested();
// Throws Interrupted if a signal arrived.
void check_interrupt();

// Checks for an interrupt before and after every trial and forwards to the wrapped runner; on a
// terminal stderr it redraws one progress line every second while a trial runs (a thread per trial).
// `stop`, when given, is asked too: true stops the search like a signal would (a cancelled probe).
class InterruptibleRunner final : public TrialRunner {
 public:
  explicit InterruptibleRunner(TrialRunner& inner, std::function<bool()> stop = {});
  TrialResult run(const Sample& sample, double rate, double runlength_s, std::uint64_t trial_index) override;

 private:
  void check() const;

  TrialRunner& inner_;
  std::function<bool()> stop_;
  bool tty_;
  std::chrono::steady_clock::time_point started_;
  double cost_s_ = 0;
  TrialDurationEstimate estimate_;
};

}  // namespace wb
