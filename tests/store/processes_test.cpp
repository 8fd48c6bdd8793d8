// The store's table of started process groups: rows round-trip (start times beyond INT64_MAX
// included), are listed per testbed oldest first, and go when removed.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <limits>

#include "store/store.hpp"

using namespace wb;
namespace fs = std::filesystem;

TEST_CASE("process rows round-trip, per testbed, until removed") {
  fs::path dir = fs::temp_directory_path() / ("wb_store_processes_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  store::Store s((dir / "w.db").string());

  store::Store::ProcessRow a;
  a.testbed = "demo";
  a.host = "local";
  a.pgid = 4242;
  a.start_ticks = std::numeric_limits<std::uint64_t>::max() - 7;  // kept as its bit pattern
  a.command = "refserver --port 5000";
  a.owner = OwnerId{"box", 99, 12345};
  a.started_at = 1700000000;
  store::Store::ProcessRow b = a;
  b.host = "root@127.0.0.1:2222";
  b.pgid = 7;
  b.started_at = 0;  // the store's clock
  store::Store::ProcessRow other = a;
  other.testbed = "sim";

  const std::int64_t ia = s.add_process(a);
  const std::int64_t ib = s.add_process(b);
  s.add_process(other);
  const auto rows = s.processes("demo");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].id == ia);
  CHECK(rows[0].host == "local");
  CHECK(rows[0].pgid == 4242);
  CHECK(rows[0].start_ticks == std::numeric_limits<std::uint64_t>::max() - 7);
  CHECK(rows[0].command == "refserver --port 5000");
  CHECK(rows[0].owner == OwnerId{"box", 99, 12345});
  CHECK(rows[0].started_at == 1700000000);
  CHECK(rows[1].id == ib);
  CHECK(rows[1].host == "root@127.0.0.1:2222");
  CHECK(rows[1].started_at > 1700000000);

  s.remove_process(ia);
  const auto left = s.processes("demo");
  REQUIRE(left.size() == 1);
  CHECK(left[0].id == ib);
  CHECK(s.processes("sim").size() == 1);
  fs::remove_all(dir);
}
