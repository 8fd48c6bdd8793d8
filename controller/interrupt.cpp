#include "controller/interrupt.hpp"

#include <csignal>

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

}  // namespace wb
