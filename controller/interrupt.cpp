#include "controller/interrupt.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>

#include "core/error.hpp"

namespace wb {

namespace {

volatile std::sig_atomic_t g_signals = 0;

extern "C" void on_signal(int sig) {
  g_signals = g_signals + 1;
  if (g_signals > 1) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupt_requested() { return g_signals > 0; }

void check_interrupt() {
  if (interrupt_requested()) throw Interrupted();
}

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

InterruptibleRunner::InterruptibleRunner(TrialRunner& inner)
    : inner_(inner), tty_(isatty(STDERR_FILENO) == 1), started_(now_s()) {}

InterruptibleRunner::~InterruptibleRunner() {
  if (tty_ && trials_ > 0) std::fputs("\r\033[K", stderr);  // leave a clean line for the report
}

TrialResult InterruptibleRunner::run(const Sample& sample, double rate, double runlength_s,
                                     std::uint64_t trial_index) {
  check_interrupt();
  if (tty_) {
    std::fputs(
        fmt::format("\r\033[K{}  load {:.1f}/s  trial {} ({:g} s)  elapsed {:.0f} s  cost so far {:.0f} s",
                    sample.key(), rate, trial_index + 1, runlength_s, now_s() - started_, cost_s_)
            .c_str(),
        stderr);
    std::fflush(stderr);
  }
  TrialResult t = inner_.run(sample, rate, runlength_s, trial_index);
  cost_s_ += t.cost_s;
  ++trials_;
  check_interrupt();
  return t;
}

}  // namespace wb
