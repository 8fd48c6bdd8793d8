#include "experiment/interrupt.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>

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
  sigaction(SIGHUP, &sa, nullptr);  // a closed terminal or a lost SSH login: stop cleanly too
}

bool interrupt_requested() { return g_signals > 0; }

void check_interrupt() {
  if (interrupt_requested()) throw Interrupted();
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Columns of the terminal on stderr less one (a line that fills the last column wraps on some
// terminals, and "\r" would then redraw only its second half); 0 when unknown.
std::size_t line_width() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col < 2) return 0;
  return static_cast<std::size_t>(ws.ws_col) - 1;
}

void draw(const std::string& line) {
  std::fputs(("\r\033[K" + line).c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace

InterruptibleRunner::InterruptibleRunner(TrialRunner& inner, std::function<bool()> stop)
    : inner_(inner), stop_(std::move(stop)), tty_(isatty(STDERR_FILENO) == 1), started_(Clock::now()) {}

void InterruptibleRunner::check() const {
  check_interrupt();
  if (stop_ && stop_()) throw Interrupted();
}

TrialResult InterruptibleRunner::run(const Sample& sample, double rate, double runlength_s,
                                     std::uint64_t trial_index) {
  check();
  const auto trial_started = Clock::now();
  std::optional<TrialResult> t;
  if (tty_) {
    TrialProgress p;
    p.sample = sample.key();
    p.rate = rate;
    p.trial = trial_index + 1;
    p.runlength_s = runlength_s;
    p.trial_expected_s = estimate_.expected_s(runlength_s);
    p.cost_s = cost_s_;
    std::mutex m;
    std::condition_variable_any tick;
    // Redraws the line every second until the trial ends, then clears it (the destructor asks it
    // to stop and joins it, also when the trial throws).
    std::jthread ticker([&](const std::stop_token& stop) {
      std::unique_lock lock(m);
      while (!stop.stop_requested()) {
        const auto now = Clock::now();
        p.trial_elapsed_s = seconds(now - trial_started);
        p.elapsed_s = seconds(now - started_);
        draw(format_progress(p, line_width()));
        tick.wait_for(lock, stop, std::chrono::seconds(1), [] { return false; });
      }
      draw("");  // the line is there only while a trial runs: the report may follow on stdout
    });
    t = inner_.run(sample, rate, runlength_s, trial_index);
  } else {
    t = inner_.run(sample, rate, runlength_s, trial_index);
  }
  estimate_.finished(runlength_s, seconds(Clock::now() - trial_started));
  cost_s_ += t->cost_s;
  check();
  return std::move(*t);
}

}  // namespace wb
