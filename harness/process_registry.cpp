#include "harness/process_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "harness/shell_quote.hpp"

namespace wb {
namespace {

// A started Process that forgets its record once it is destroyed (after its group was stopped).
class RecordedProcess final : public Process {
 public:
  RecordedProcess(std::unique_ptr<Process> inner, ProcessRegistry& registry, std::int64_t id)
      : inner_(std::move(inner)), registry_(registry), id_(id) {}
  ~RecordedProcess() override {
    inner_.reset();
    registry_.forget(id_);
  }

  std::optional<std::string> read_line(std::chrono::milliseconds timeout) override {
    return inner_->read_line(timeout);
  }
  std::optional<CommandResult> wait(std::chrono::milliseconds timeout) override {
    return inner_->wait(timeout);
  }
  CommandResult stop(std::chrono::milliseconds grace) override { return inner_->stop(grace); }
  std::string describe() const override { return inner_->describe(); }
  ProcessGroup group() const override { return inner_->group(); }

 private:
  std::unique_ptr<Process> inner_;
  ProcessRegistry& registry_;
  const std::int64_t id_;
};

class RecordingExecutor final : public Executor {
 public:
  RecordingExecutor(std::unique_ptr<Executor> inner, ProcessRegistry& registry)
      : inner_(std::move(inner)), registry_(registry) {}

  CommandResult run(const CommandSpec& spec) override { return inner_->run(spec); }
  std::unique_ptr<Process> start(const CommandSpec& spec) override {
    std::unique_ptr<Process> p = inner_->start(spec);
    const ProcessGroup group = p->group();
    if (group.pgid <= 0) return p;  // nothing runs
    // If the record cannot be written, `p` is destroyed on the way out: the group is stopped.
    const std::int64_t id = registry_.record(StartedGroup{inner_->describe(), group, shell_join(spec.argv)});
    return std::make_unique<RecordedProcess>(std::move(p), registry_, id);
  }
  void upload(const std::string& local_path, const std::string& remote_path, int mode) override {
    inner_->upload(local_path, remote_path, mode);
  }
  std::string describe() const override { return inner_->describe(); }

 private:
  std::unique_ptr<Executor> inner_;
  ProcessRegistry& registry_;
};

// $1 pgid, $2 start ticks, $3 polls of 50 ms before SIGKILL. Exit 0 killed, 3 gone, 4 reused. Field
// 22 of /proc/PGID/stat is the 20th word after the name's ")". A zombie leader counts as running: its
// parent may be an init that reaps it late (docs/decisions.md#process-guard).
constexpr const char* kKillScript =
    "p=$1; t=$2; n=$3; wb_s=; "
    "IFS= read -r wb_s 2>/dev/null </proc/\"$p\"/stat || exit 3; "
    "wb_s=${wb_s##*\") \"}; set -- $wb_s; [ \"${20}\" = \"$t\" ] || exit 4; "
    "kill -TERM -\"$p\" 2>/dev/null; i=0; "
    "while [ $i -lt \"$n\" ] && wb_s= && IFS= read -r wb_s 2>/dev/null </proc/\"$p\"/stat; do "
    "case ${wb_s##*\") \"} in Z*) break;; esac; sleep 0.05; i=$((i+1)); done; "
    "kill -KILL -\"$p\" 2>/dev/null; exit 0";

}  // namespace

std::unique_ptr<Executor> make_recording_executor(std::unique_ptr<Executor> inner,
                                                  ProcessRegistry& registry) {
  return std::make_unique<RecordingExecutor>(std::move(inner), registry);
}

RecordedGroupFate kill_recorded_group(Executor& host, long pgid, std::uint64_t start_ticks,
                                      std::chrono::milliseconds grace) {
  if (pgid <= 1 || start_ticks == 0) return RecordedGroupFate::kGone;
  const long polls = std::max<long>(1, static_cast<long>(grace.count()) / 50);
  CommandSpec spec{{"sh", "-c", kKillScript, "sh", std::to_string(pgid), std::to_string(start_ticks),
                    std::to_string(polls)},
                   {},
                   {},
                   grace + std::chrono::seconds(10)};
  const CommandResult r = host.run(spec);
  if (r.exit_status == 0 && !r.timed_out) return RecordedGroupFate::kKilled;
  if (r.exit_status == 3) return RecordedGroupFate::kGone;
  if (r.exit_status == 4) return RecordedGroupFate::kReused;
  throw Error(fmt::format("{}: killing process group {} failed (exit {}{}): {}", host.describe(), pgid,
                          r.exit_status, r.timed_out ? ", timed out" : "", r.err));
}

}  // namespace wb
