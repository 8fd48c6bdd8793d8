#pragma once
// Test helper: SshExecutor options for the fixture's sshd (and, from command_specs.hpp, commands
// run by /bin/sh).
#include <chrono>
#include <string>

#include "command_specs.hpp"
#include "harness/executor.hpp"
#include "harness/ssh_executor.hpp"
#include "sshd_fixture.hpp"

namespace wb::test {

// How to reach the fixture's sshd, with every other option at its default (bench/ssh uses this).
inline wb::SshOptions connection_to(const SshdFixture& sshd) {
  wb::SshOptions o;
  o.host = sshd.host();
  o.port = sshd.port();
  o.user = sshd.user();
  o.identity_file = sshd.client_key();
  o.known_hosts_file = sshd.known_hosts();
  o.global_known_hosts_file = "";  // hermetic: only the fixture's file
  return o;
}

// connection_to with short kill and reconnect waits, so tests that kill or reconnect stay quick.
inline wb::SshOptions options_for(const SshdFixture& sshd) {
  using namespace std::chrono_literals;
  wb::SshOptions o = connection_to(sshd);
  o.kill_grace = 300ms;
  o.reconnect_backoff = 50ms;
  return o;
}

}  // namespace wb::test
