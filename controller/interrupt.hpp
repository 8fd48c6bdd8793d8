#pragma once
#include <cstdint>

#include "core/trial.hpp"

namespace wb {

// SIGINT and SIGTERM set a flag instead of killing the controller, so that whatever a trial
// started is stopped and the store is left consistent. A second signal restores the default
// action (kill) for a user who really wants out.
void install_interrupt_handlers();
bool interrupt_requested();
// Throws Interrupted if a signal arrived.
void check_interrupt();

// Checks for an interrupt before every trial and forwards to the wrapped runner.
class InterruptibleRunner final : public TrialRunner {
 public:
  explicit InterruptibleRunner(TrialRunner& inner) : inner_(inner) {}
  TrialResult run(const Sample& sample, double rate, double runlength_s, std::uint64_t trial_index) override {
    check_interrupt();
    TrialResult t = inner_.run(sample, rate, runlength_s, trial_index);
    check_interrupt();
    return t;
  }

 private:
  TrialRunner& inner_;
};

}  // namespace wb
