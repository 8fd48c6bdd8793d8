// Leases in the store: one owner per resource, takeover only of a holder the caller judges dead,
// cancel requests seen at the heartbeat, and searches opened, resumed and marked interrupted
// under them (DESIGN.md "Security and failure").
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "store/sqlite.hpp"
#include "store/store.hpp"
#include "tests/store/temp_store.hpp"

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::string fresh_lease_path(const std::string& name) { return wb::test::fresh_store_path("lease_" + name); }

const OwnerId kA{"host-a", 100, 7};
const OwnerId kB{"host-b", 200, 9};
const auto kAlive = [](const store::Store::LeaseRow&) { return false; };
const auto kDead = [](const store::Store::LeaseRow&) { return true; };

store::SearchRecord record(const std::string& disks) {
  return test::search_record("t", "disks", disks, 1, R"({"start_rate":50})");
}

}  // namespace

TEST_CASE("a lease has one owner: a live holder keeps it, a dead one is taken over") {
  store::Store s(fresh_lease_path("owner"));
  CHECK_FALSE(s.acquire_lease("search:1", kA, 10, kAlive));  // free: taken
  CHECK_FALSE(s.acquire_lease("search:1", kA, 11, kAlive));  // ours: renewed
  REQUIRE(s.lease("search:1"));
  CHECK(s.lease("search:1")->heartbeat_at == 11);
  CHECK(s.lease("search:1")->acquired_at == 10);

  auto held = s.acquire_lease("search:1", kB, 12, kAlive);
  REQUIRE(held);
  CHECK(held->owner == kA);
  CHECK(s.lease("search:1")->owner == kA);  // nothing changed

  CHECK_FALSE(s.acquire_lease("search:1", kB, 13, kDead));
  CHECK(s.lease("search:1")->owner == kB);

  // Release only by its owner.
  s.release_lease("search:1", kA);
  CHECK(s.lease("search:1"));
  s.release_lease("search:1", kB);
  CHECK_FALSE(s.lease("search:1"));

  // Same host and pid but another start time is another process (a reused pid).
  OwnerId reused = kA;
  reused.start_ticks = 8;
  CHECK_FALSE(s.acquire_lease("probe:1", kA, 1, kAlive));
  CHECK(s.acquire_lease("probe:1", reused, 2, kAlive));
}

TEST_CASE("the heartbeat renews every lease of its owner and reports cancel requests") {
  store::Store s(fresh_lease_path("beat"));
  s.acquire_lease("search:1", kA, 1, kAlive);
  s.acquire_lease("probe:3", kA, 1, kAlive);
  s.acquire_lease("search:2", kB, 1, kAlive);
  CHECK(s.renew_leases(kA, 5).empty());
  CHECK(s.lease("search:1")->heartbeat_at == 5);
  CHECK(s.lease("probe:3")->heartbeat_at == 5);
  CHECK(s.lease("search:2")->heartbeat_at == 1);

  CHECK(s.request_cancel("probe:3"));
  CHECK_FALSE(s.request_cancel("probe:4"));  // nobody holds it
  CHECK(s.renew_leases(kA, 6) == std::vector<std::string>{"probe:3"});
  CHECK(s.renew_leases(kB, 6).empty());

  s.release_leases(kA);
  CHECK_FALSE(s.lease("search:1"));
  CHECK_FALSE(s.lease("probe:3"));
  CHECK(s.lease("search:2"));
}

TEST_CASE("open_search resumes an unfinished search of the same request, or waits for its live owner") {
  const std::string path = fresh_lease_path("open");
  store::Store s(path);
  store::Store::OpenedSearch first = s.open_search(record("2"), kA, 1, kAlive);
  CHECK_FALSE(first.resumed);
  CHECK_FALSE(first.holder);
  CHECK(s.lease("search:" + std::to_string(first.id))->owner == kA);

  // Another controller asking for the same search while A lives: told who holds it, no new search.
  store::Store other(path);
  store::Store::OpenedSearch second = other.open_search(record("2"), kB, 2, kAlive);
  CHECK(second.id == first.id);
  REQUIRE(second.holder);
  CHECK(second.holder->owner == kA);
  CHECK(s.search_ids("t").size() == 1);

  // A dies: B resumes the same search.
  store::Store::OpenedSearch third = other.open_search(record("2"), kB, 3, kDead);
  CHECK(third.id == first.id);
  CHECK(third.resumed);
  CHECK_FALSE(third.holder);
  CHECK(s.search(first.id)->status == store::SearchState::kRunning);

  // Other options, another sample or a finished search: a new search.
  store::SearchRecord changed = record("2");
  changed.options_json = R"({"start_rate":60})";
  CHECK(s.open_search(changed, kA, 4, kAlive).id != first.id);
  CHECK(s.open_search(record("3"), kA, 4, kAlive).id != first.id);
  SearchResult done;
  done.status = SearchStatus::kFound;
  done.peak_rate = 100;
  s.finish_search(first.id, done);
  store::Store::OpenedSearch fresh = s.open_search(record("2"), kA, 5, kAlive);
  CHECK(fresh.id != first.id);
  CHECK_FALSE(fresh.resumed);
}

TEST_CASE("mark_interrupted marks running searches of dead or missing owners, not of live ones") {
  store::Store s(fresh_lease_path("sweep"));
  const std::int64_t live = s.begin_owned_search(record("1"), kA, 1);
  const std::int64_t dead = s.begin_owned_search(record("2"), kB, 1);
  const std::int64_t orphan = s.begin_search(record("3"));  // a store written before leases
  auto judge = [](const store::Store::LeaseRow& l) { return l.owner == kB; };
  std::vector<std::int64_t> marked = s.mark_interrupted(judge);
  std::sort(marked.begin(), marked.end());
  CHECK(marked == std::vector<std::int64_t>{dead, orphan});
  CHECK(s.search(live)->status == store::SearchState::kRunning);
  CHECK(s.search(dead)->status == store::SearchState::kInterrupted);
  CHECK(s.search(orphan)->status == store::SearchState::kInterrupted);
  CHECK_FALSE(s.lease("search:" + std::to_string(dead)));
  // An interrupted search is resumed by the same request.
  store::Store::OpenedSearch again = s.open_search(record("2"), kA, 2, kAlive);
  CHECK(again.id == dead);
  CHECK(again.resumed);
}

TEST_CASE("a transaction inside another is a savepoint: the inner rollback keeps the outer work") {
  store::Store s(fresh_lease_path("nested"));
  {
    store::Transaction outer(s.db());
    s.acquire_lease("a", kA, 1, kAlive);  // its own transaction nests
    {
      store::Transaction inner(s.db());
      s.acquire_lease("b", kA, 1, kAlive);
    }  // rolled back
    outer.commit();
  }
  CHECK(s.lease("a"));
  CHECK_FALSE(s.lease("b"));
  {
    store::Transaction outer(s.db());
    s.acquire_lease("c", kA, 1, kAlive);
  }  // all rolled back
  CHECK_FALSE(s.lease("c"));
}
