#pragma once
// The command line SshExecutor sends to the remote login shell for a CommandSpec. Pure and
// thread-safe; separate from ssh_executor.cpp so both of its paths can be tested on any shell.
//
// Contract of the line it returns (for a POSIX login shell on Linux):
//  - the first line the command writes to stdout is the id of a process group that holds the
//    command and nothing else of the host (the command's own session);
//  - then argv runs with exec (so its exit status or signal is the shell's), with spec.env
//    added (`env --`) and in spec.cwd (`cd DIR &&`), every word quoted with shell_quote.
//
// OpenSSH already starts every session's shell with setsid(), so the shell is a session and
// group leader: then it just prints $$ and execs the command (no extra processes: this keeps a
// command at ~1 round trip). If it is not a leader (another SSH server, a wrapper), it falls
// back to `exec setsid -w sh -c 'echo $$; exec CMD'`, which starts a new session for CMD: as the
// shell is no group leader there, setsid calls setsid() itself without forking, so CMD keeps
// the shell's pid and its exit status or signal still reaches sshd unchanged.
// Leadership is tested with the builtin `kill -0 -$$` (does a group with the shell's pid exist?
// only if the shell leads it): one system call, no fork, no /proc (it replaced reading
// /proc/$$/stat, ~0.03-0.05 ms less per command on loopback, bench/ssh/RESULTS.txt).
#include <chrono>
#include <string>

#include "harness/executor.hpp"

namespace wb {

std::string remote_command_line(const CommandSpec& spec);

// The line for a command started with Executor::start: as remote_command_line, and also
//  - the first line is "PGID TICKS": the group id and its leader's start time (/proc/PGID/stat
//    field 22 on the host; just "PGID " where there is no /proc);
//  - the command's stdin is /dev/null, and a guard — a subshell in the command's group, whose
//    stdin is the channel's — waits for that stdin to end. It ends when the channel closes:
//    the controller died, the connection was lost, or the command exited (sshd then closes
//    it). The guard then sends SIGTERM to the group, waits up to `grace` while the command
//    runs, and sends SIGKILL to what is left, itself included. Stopping the command the usual
//    way (kill -TERM -PGID) ends the guard with it. The guard's output goes to /dev/null, so it
//    never holds the channel open.
std::string remote_start_line(const CommandSpec& spec, std::chrono::milliseconds grace);

// A shell started ahead of its command (SshExecutor's spare channel, bench/ssh/RESULTS.txt):
// most of a command's ~3 ms over a reused session is sshd forking the session and the login
// shell starting (~2 ms), not the command. So the executor execs `waiting_shell()` on the next
// command's channel before that command is known, and when it comes writes
// `waiting_shell_input(remote_command_line(spec))` to the channel's stdin. The waiting shell
// reads that one line with the builtin `read` (byte by byte from the pipe, so nothing after the
// line is consumed: the rest of stdin stays the command's) and evaluates it in itself, so `$$`,
// the process group, exec and the exit status are exactly those of the line run directly. At
// EOF before a line (the executor closed the spare) it exits 0 having run nothing.
// Only POSIX sh builtins (dash, bash, busybox sh): no fork before the command's own exec.
std::string waiting_shell();

// The one line (ending in '\n') that makes waiting_shell() run `command_line` — any text,
// newlines included: `eval` followed by command_line quoted as one word, each newline written
// as "$wb_nl" (a variable waiting_shell() sets to a newline) so that the word fits one line.
std::string waiting_shell_input(const std::string& command_line);

}  // namespace wb
