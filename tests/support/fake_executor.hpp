#pragma once
// FakeExecutor: an Executor without processes or real time, for unit tests of what drives one
// (the trial runner's SUT lifecycle, deadlines, merging). It records every command, and a
// script decides what each started command does: print lines, exit, stall, or drop the
// connection. A stalled command with a deadline ends as the real executors end it at that
// deadline (timed_out), at once.
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "harness/executor.hpp"

namespace wb::test {

// What one started fake command does.
struct FakeBehaviour {
  std::vector<std::string> lines;     // its stdout lines, in order (read_line)
  std::optional<CommandResult> exit;  // it exits with this once its lines are read
  bool stall = false;                 // it never exits by itself
};

// Everything the fakes of one test did, shared by its executors.
struct FakeLog {
  struct Command {
    std::string host;
    CommandSpec spec;
  };
  std::vector<Command> runs;
  std::vector<Command> starts;
  struct Upload {
    std::string host, path, content;
    int mode = 0;
  };
  std::vector<Upload> uploads;       // what each upload() would have written, read at the call
  std::vector<std::string> stopped;  // argv[0] of each command stopped while it still ran
  int running = 0;                   // started, neither exited nor stopped
};

class FakeProcess final : public Process {
 public:
  FakeProcess(std::shared_ptr<FakeLog> log, CommandSpec spec, FakeBehaviour b)
      : log_(std::move(log)), spec_(std::move(spec)), b_(std::move(b)) {
    ++log_->running;
  }
  ~FakeProcess() override { stop(); }

  std::optional<std::string> read_line(std::chrono::milliseconds) override {
    if (next_ < b_.lines.size()) return b_.lines[next_++];
    if (b_.stall && !done_) throw Error("fake: no complete line within the timeout");
    end();
    return std::nullopt;
  }
  std::optional<CommandResult> wait(std::chrono::milliseconds) override {
    if (done_) return result_;
    if (b_.stall) {
      if (spec_.deadline.count() == 0) return std::nullopt;
      CommandResult r;
      r.timed_out = true;
      r.exit_signal = "KILL";
      finish(r);
      return result_;
    }
    next_ = b_.lines.size();
    end();
    return result_;
  }
  CommandResult stop(std::chrono::milliseconds = std::chrono::seconds(2)) override {
    if (!done_) {
      log_->stopped.push_back(spec_.argv.front());
      CommandResult r;
      r.exit_signal = "TERM";
      finish(r);
    }
    return result_;
  }
  std::string describe() const override { return "fake: " + spec_.argv.front(); }
  ProcessGroup group() const override { return {}; }

 private:
  void end() {
    if (!done_) finish(b_.exit.value_or(CommandResult{0, std::nullopt, "", "", false}));
  }
  void finish(CommandResult r) {
    result_ = std::move(r);
    done_ = true;
    --log_->running;
  }

  std::shared_ptr<FakeLog> log_;
  CommandSpec spec_;
  FakeBehaviour b_;
  std::size_t next_ = 0;
  bool done_ = false;
  CommandResult result_;
};

class FakeExecutor final : public Executor {
 public:
  using StartScript = std::function<FakeBehaviour(const CommandSpec&)>;
  using RunScript = std::function<CommandResult(const CommandSpec&)>;

  FakeExecutor(std::string host, std::shared_ptr<FakeLog> log, StartScript on_start, RunScript on_run = {})
      : host_(std::move(host)),
        log_(std::move(log)),
        on_start_(std::move(on_start)),
        on_run_(std::move(on_run)) {}

  // Set: the connection is lost, and every later call throws Error as the SSH executor does.
  std::shared_ptr<bool> dropped = std::make_shared<bool>(false);

  CommandResult run(const CommandSpec& spec) override {
    check(spec);
    log_->runs.push_back({host_, spec});
    return on_run_ ? on_run_(spec) : CommandResult{0, std::nullopt, "", "", false};
  }
  std::unique_ptr<Process> start(const CommandSpec& spec) override {
    check(spec);
    log_->starts.push_back({host_, spec});
    return std::make_unique<FakeProcess>(log_, spec, on_start_(spec));
  }
  void upload(const std::string& local_path, const std::string& remote_path, int mode) override {
    std::ifstream in(local_path, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    log_->uploads.push_back({host_, remote_path, content.str(), mode});
  }
  std::string describe() const override { return "fake@" + host_; }

 private:
  void check(const CommandSpec& spec) const {
    check_command_spec(spec);
    if (*dropped) throw Error("fake@" + host_ + ": connection lost: " + spec.argv.front());
  }

  std::string host_;
  std::shared_ptr<FakeLog> log_;
  StartScript on_start_;
  RunScript on_run_;
};

}  // namespace wb::test
