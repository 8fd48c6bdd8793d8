// make_recording_executor with fakes (no processes): every started group is recorded with its
// host, group and command, and forgotten once its Process is gone; run() is not recorded; a group
// that cannot be recorded is stopped, and one that never started is not recorded.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "core/error.hpp"
#include "harness/process_registry.hpp"

using namespace std::chrono_literals;

namespace {

// A started process that only says who it is and counts its stops.
class FakeProcess final : public wb::Process {
 public:
  FakeProcess(wb::ProcessGroup g, int& destroyed) : group_(g), destroyed_(destroyed) {}
  ~FakeProcess() override { ++destroyed_; }
  std::optional<std::string> read_line(std::chrono::milliseconds) override { return "ready"; }
  std::optional<wb::CommandResult> wait(std::chrono::milliseconds) override { return std::nullopt; }
  wb::CommandResult stop(std::chrono::milliseconds) override { return {}; }
  std::string describe() const override { return "fake"; }
  wb::ProcessGroup group() const override { return group_; }

 private:
  wb::ProcessGroup group_;
  int& destroyed_;
};

class FakeExecutor final : public wb::Executor {
 public:
  int destroyed = 0;
  long next_pgid = 100;
  wb::CommandResult run(const wb::CommandSpec&) override { return {}; }
  std::unique_ptr<wb::Process> start(const wb::CommandSpec& spec) override {
    if (spec.argv[0] == "missing") return std::make_unique<FakeProcess>(wb::ProcessGroup{}, destroyed);
    return std::make_unique<FakeProcess>(wb::ProcessGroup{next_pgid++, 5000}, destroyed);
  }
  void upload(const std::string&, const std::string&, int) override {}
  std::string describe() const override { return "root@h:22"; }
};

class FakeRegistry final : public wb::ProcessRegistry {
 public:
  std::map<std::int64_t, wb::StartedGroup> rows;
  std::int64_t next = 1;
  bool fail = false;
  std::int64_t record(const wb::StartedGroup& g) override {
    if (fail) throw wb::Error("store is locked");
    rows[next] = g;
    return next++;
  }
  void forget(std::int64_t id) noexcept override { rows.erase(id); }
};

}  // namespace

TEST_CASE("recording executor: a started group is recorded until its Process is gone") {
  auto inner = std::make_unique<FakeExecutor>();
  FakeExecutor& fake = *inner;
  FakeRegistry registry;
  auto ex = wb::make_recording_executor(std::move(inner), registry);
  CHECK(ex->describe() == "root@h:22");

  auto a = ex->start({{"refserver", "--port", "5000 x"}, {}, {}, 0ms});
  auto b = ex->start({{"wbload"}, {}, {}, 0ms});
  REQUIRE(registry.rows.size() == 2);
  const wb::StartedGroup& first = registry.rows.begin()->second;
  CHECK(first.host == "root@h:22");
  CHECK(first.group.pgid == 100);
  CHECK(first.group.start_ticks == 5000);
  CHECK(first.command == "refserver --port '5000 x'");
  CHECK(a->group().pgid == 100);  // the Process still says what it is
  CHECK(a->read_line(1s) == std::optional<std::string>("ready"));

  a.reset();
  CHECK(fake.destroyed == 1);
  REQUIRE(registry.rows.size() == 1);
  CHECK(registry.rows.begin()->second.group.pgid == 101);
  b.reset();
  CHECK(registry.rows.empty());

  ex->run({{"true"}, {}, {}, 1s});
  CHECK(registry.rows.empty());
}

TEST_CASE("recording executor: nothing started is not recorded, and an unrecordable group is stopped") {
  auto inner = std::make_unique<FakeExecutor>();
  FakeExecutor& fake = *inner;
  FakeRegistry registry;
  auto ex = wb::make_recording_executor(std::move(inner), registry);
  auto missing = ex->start({{"missing"}, {}, {}, 0ms});
  CHECK(registry.rows.empty());
  CHECK(missing->group().pgid == -1);

  registry.fail = true;
  CHECK_THROWS_WITH(ex->start({{"refserver"}, {}, {}, 0ms}), Catch::Contains("store is locked"));
  CHECK(fake.destroyed == 1);  // the group it could not record was stopped
  CHECK(registry.rows.empty());
}
