#pragma once
// The command line SshExecutor sends to the remote login shell for a CommandSpec; pure and thread-safe,
// apart from ssh_executor.cpp so both paths can be tested on any shell. For a POSIX login shell on
// Linux: the first line on stdout is the id of a process group holding the command and nothing else;
// then argv runs with exec (its exit status is the shell's), with spec.env (`env --`) in spec.cwd,
// every word quoted with shell_quote. A shell that is not a session leader gets `setsid -w` first
// (why and what it costs: docs/decisions.md#remote-command-line).
#include <chrono>
#include <string>

#include "harness/executor.hpp"

namespace wb {

std::string remote_command_line(const CommandSpec& spec);

// The line for a command started with Executor::start: as remote_command_line, but the first line is
// "PGID TICKS" (the leader's start time, /proc/PGID/stat field 22; "PGID " without /proc), stdin is
// /dev/null, and a guard in the command's group, reading the channel's stdin, ends the group (SIGTERM,
// SIGKILL after `grace`) once the channel closes. kill -TERM -PGID ends the guard too; its output goes
// to /dev/null, so it never holds the channel open.
std::string remote_start_line(const CommandSpec& spec, std::chrono::milliseconds grace);

// A shell started ahead of its command on a spare channel: it reads one line (`waiting_shell_input`)
// with builtin `read`, leaving the rest of stdin to the command, and evaluates it in itself, so $$,
// the group, exec and exit status are the line's own; at EOF first it exits 0. POSIX sh builtins only
// (dash, bash, busybox sh). Why: docs/decisions.md#ssh-spare-channels.
std::string waiting_shell();

// The one line (ending in '\n') that makes waiting_shell() run `command_line` — any text,
// newlines included: `eval` followed by command_line quoted as one word, each newline written
// as "$wb_nl" (a variable waiting_shell() sets to a newline) so that the word fits one line.
std::string waiting_shell_input(const std::string& command_line);

}  // namespace wb
