// Mismatches and probes in the store, and the claim lock across handles and processes [000 §3.3].
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.hpp"
#include "store/store.hpp"

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::string fresh_store(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("wb_probe_store_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return (d / "w.db").string();
}

Sample at(int disks, int threads) {
  Sample s;
  s.set("disks", std::to_string(disks));
  s.set("threads", std::to_string(threads));
  return s;
}

// A mismatch at disks=4 with `n` probes at threads 1..n.
std::int64_t plan(store::Store& store, int n, std::int64_t not_before = 0) {
  store::SearchRecord rec;
  rec.testbed = "t";
  rec.sample = at(4, 100);
  rec.policy = "binsearch";
  rec.options_json = "{}";
  std::int64_t search = store.begin_search(rec);
  store::Store::MismatchRow m;
  m.testbed = "t";
  m.search_id = search;
  m.sample = rec.sample;
  m.expected = 300;
  m.measured = 80;
  m.ratio = 80.0 / 300;
  std::vector<store::Store::ProbeRow> probes;
  for (int i = 1; i <= n; ++i) {
    store::Store::ProbeRow p;
    p.testbed = "t";
    p.sample = at(4, i);
    p.attribute = "threads";
    p.priority = 100 - i;
    p.not_before = not_before;
    probes.push_back(p);
  }
  return store.add_mismatch(m, probes).first;
}

}  // namespace

TEST_CASE("a mismatch and its probes round-trip, skipping samples already measured or planned") {
  store::Store store(fresh_store("roundtrip"));
  std::int64_t id = plan(store, 3);
  auto m = store.mismatch(id);
  REQUIRE(m);
  CHECK(m->status == store::MismatchState::kOpen);
  CHECK(m->sample == at(4, 100));
  CHECK(store.has_mismatch_at("t", at(4, 100)));
  CHECK_FALSE(store.has_mismatch_at("t", at(3, 100)));
  auto probes = store.probes("t", false);
  REQUIRE(probes.size() == 3);
  CHECK(probes[0].sample == at(4, 1));  // highest priority first
  CHECK(probes[0].status == store::ProbeState::kPlanned);
  // Planning the same samples again (plus the measured mismatch point) adds nothing.
  plan(store, 3);
  CHECK(store.probes("t", true).size() == 3);
  CHECK(store.mismatches("t", true).size() == 2);
  store.close_mismatch(id);
  CHECK(store.mismatches("t", true).size() == 1);
  CHECK(store.mismatch(id)->status == store::MismatchState::kClosed);
}

TEST_CASE("only due probes are claimed, a claim is exclusive, and cancel refuses unknown ids") {
  std::string path = fresh_store("claim");
  store::Store a(path);
  store::Store b(path);
  plan(a, 2, 1000);
  CHECK_FALSE(a.claim_due_probe("t", "a", 999));  // not due yet
  auto first = a.claim_due_probe("t", "a", 1000);
  REQUIRE(first);
  CHECK(first->status == store::ProbeState::kRunning);
  CHECK(first->lock_owner == "a");
  auto second = b.claim_due_probe("t", "b", 1000);
  REQUIRE(second);
  CHECK(second->id != first->id);
  CHECK_FALSE(a.claim_due_probe("t", "a", 1000));
  CHECK_FALSE(b.claim_probe(first->id, "b", 1000));  // held by a
  a.release_probe(first->id);
  CHECK(b.claim_probe(first->id, "b", 1000));
  b.finish_probe(first->id, std::nullopt);
  CHECK(b.probe(first->id)->status == store::ProbeState::kDone);
  CHECK_FALSE(a.cancel_probe(first->id));
  CHECK(a.cancel_probe(second->id));
  CHECK(a.probe(second->id)->status == store::ProbeState::kCancelled);
  CHECK_THROWS_AS(a.cancel_probe(9999), InputError);
}

TEST_CASE("a probe left running by a dead agent is taken over only once its lock is stale") {
  store::Store s(fresh_store("stale"));
  plan(s, 1);
  auto p = s.claim_due_probe("t", "dead", 100);
  REQUIRE(p);
  CHECK_FALSE(s.claim_due_probe("t", "b", 200, 100));  // locked at 100: not before 100
  auto q = s.claim_due_probe("t", "b", 200, 101);
  REQUIRE(q);
  CHECK(q->id == p->id);
  CHECK(q->lock_owner == "b");
  CHECK(q->locked_at == 200);
  CHECK_FALSE(s.claim_due_probe("t", "c", 200, 101));  // b's fresh lock holds
}

TEST_CASE("two processes claiming at once never get the same probe") {
  std::string path = fresh_store("fork");
  const int kProbes = 40;
  {
    store::Store s(path);
    plan(s, kProbes);
  }
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int code = 0;
      try {
        store::Store s(path);
        const std::string owner = "child" + std::to_string(c);
        std::ofstream claimed(path + "." + owner);
        while (auto p = s.claim_due_probe("t", owner, 0)) {
          claimed << p->id << "\n" << std::flush;
          s.finish_probe(p->id, std::nullopt);
        }
      } catch (...) {
        code = 1;
      }
      _exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  // Every claim each process got, as it wrote them down: each probe exactly once over both.
  std::map<std::int64_t, int> claims;
  for (int c = 0; c < 2; ++c) {
    std::ifstream in(path + ".child" + std::to_string(c));
    std::int64_t id = 0;
    while (in >> id) ++claims[id];
  }
  store::Store s(path);
  auto probes = s.probes("t", true);
  REQUIRE(probes.size() == kProbes);
  REQUIRE(claims.size() == kProbes);
  for (const auto& p : probes) {
    CHECK(p.status == store::ProbeState::kDone);
    CHECK(claims[p.id] == 1);
  }
}
