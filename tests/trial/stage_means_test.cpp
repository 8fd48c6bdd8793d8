// Per-request stage means from a refserver stats object (harness/real_trial_runner.hpp), and when
// the real runner asks for them [000 §3.2].
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "harness/real_trial_runner.hpp"

using namespace wb;
using nlohmann::json;

namespace {

json op(double count, double cpu_total, double disk_total) {
  json stages = json::object();
  for (const char* s : {"thread_queue", "lock", "disk_queue", "lag"}) stages[s] = {{"total_ms", 0.0}};
  stages["cpu"] = {{"total_ms", cpu_total}};
  stages["disk"] = {{"total_ms", disk_total}};
  stages["residence"] = {{"total_ms", cpu_total + disk_total}};
  return {{"count", count}, {"stages", stages}};
}

}  // namespace

TEST_CASE("stage means are per request over reads, writes and metadata, noops left out") {
  // 30 reads and 10 writes of 5 ms on disk, 60 metadata requests that never touch one; 0.2 ms of
  // CPU each. 900 noops (the load generator's, or a probe) do not count.
  json stats{{"ops",
              {{"noop", {{"count", 900}, {"stages", json::object()}}},
               {"read", op(30, 6.0, 150.0)},
               {"write", op(10, 2.0, 50.0)},
               {"metadata", op(60, 12.0, 0.0)}}}};
  auto m = stage_means_from_refserver_stats(stats);
  CHECK(m.at("cpu") == Approx(0.2));
  CHECK(m.at("disk") == Approx(2.0));  // 200 ms over 100 requests: per request, like the model
  CHECK(m.at("residence") == Approx(2.2));
  CHECK(m.at("thread_queue") == 0);
  CHECK(m.size() == 7);

  // Nothing served: no means. Another shape: an error naming the stats.
  CHECK(stage_means_from_refserver_stats(json{{"ops", {{"read", op(0, 0, 0)}}}}).empty());
  CHECK_THROWS_AS(stage_means_from_refserver_stats(json{{"ops", {{"read", {{"count", 3}}}}}}), Error);
  CHECK_THROWS_AS(stage_means_from_refserver_stats(json::object()), Error);
}

TEST_CASE("stage times are read when the SUT is the bundled refserver") {
  TestbedConfig t;
  t.sut.start = "taskset --cpu-list 0 {refserver} --port {port} --threads {threads}";
  CHECK(sut_reports_stages(t));
  t.sut.start = "nginx -c {source}/configs/nginx/nginx.conf";
  CHECK_FALSE(sut_reports_stages(t));
}
