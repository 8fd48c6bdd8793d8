// peak's report of a search (controller/peak_report.hpp), text and JSON, from a constructed
// SearchResult: a load at which nothing completed shows no response time.
#include <catch2/catch.hpp>

#include <sstream>
#include <vector>

#include "controller/peak_report.hpp"
#include "core/config.hpp"

using namespace wb;

namespace {

TrialResult trial(double rate, std::uint64_t completed, double mean_ms) {
  TrialResult t;
  t.offered_rate = rate;
  t.runlength_s = 60;
  t.sent = static_cast<std::uint64_t>(rate * 60);
  t.completed = completed;
  t.achieved_rate = static_cast<double>(completed) / 60;
  t.mean_ms = mean_ms;
  t.cost_s = 70;
  return t;
}

// A load judged above because its trials saturated; its CI over their means at 95%.
TestLoad saturated_load(double rate, std::vector<TrialResult> trials) {
  TestLoad l;
  l.rate = rate;
  l.runlength_s = 60;
  std::vector<double> means;
  for (const auto& t : trials) means.push_back(t.mean_ms);
  l.ci = mean_interval(means, 0.95);
  l.trials = std::move(trials);
  l.saturated = true;
  l.verdict = Verdict::kAbove;
  return l;
}

}  // namespace

TEST_CASE("peak report: a load at which no request completed has no mean and no CI, text and JSON") {
  Config config = Config::load(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  SearchResult s;
  s.status = SearchStatus::kNotFound;
  s.message = "the load bracket collapsed";
  // Every request timed out: the trials' mean of 0 ms means nothing.
  TestLoad stalled = saturated_load(500, {trial(500, 0, 0.0), trial(500, 0, 0.0)});
  // Saturated too, but its completed requests have a response time.
  TestLoad slow = saturated_load(300, {trial(300, 9000, 41.0), trial(300, 9100, 43.0)});
  s.loads = {stalled, slow};
  s.trials = 4;
  s.cost_s = 280;
  PeakReport r{7, &config, config.sample("disks=1,threads=1"), Target{0.95, 0.90}, "binsearch", 1, &s};

  nlohmann::json j = peak_json(r);
  REQUIRE(j["loads"].size() == 2);
  CHECK(j["loads"][0]["mean_ms"].is_null());
  CHECK(j["loads"][0]["ci_low_ms"].is_null());
  CHECK(j["loads"][0]["saturated"] == true);
  CHECK(j["loads"][1]["mean_ms"].get<double>() == Approx(42.0));
  CHECK(j["loads"][1]["ci_low_ms"].get<double>() < 41.0);

  std::ostringstream out;
  print_peak(out, r);
  const std::string text = out.str();
  INFO(text);
  CHECK(text.find("0.00") == std::string::npos);
  CHECK(text.find("(saturated: no request completed)") != std::string::npos);
  CHECK(text.find("42.00") != std::string::npos);
  CHECK(text.find("no peak rate: not-found") != std::string::npos);
}

TEST_CASE("peak report: a search below a bistable band says so, with its λ* and band, text and JSON") {
  Config config = Config::load(std::string(WB_SOURCE_DIR) + "/configs/sim.toml");
  SearchResult s;
  s.status = SearchStatus::kBistable;
  s.peak_rate = 100;
  s.response = MeanInterval{3, 2.5, 3.6};
  s.peak_low = 100;
  s.peak_high = 140;
  s.message = "bistable within [110, 140]/s: there 4 trials fell into a queue";
  TestLoad below;
  below.rate = 100;
  below.runlength_s = 60;
  below.trials = {trial(100, 6000, 3.0), trial(100, 6000, 3.1)};
  below.ci = s.response;
  below.verdict = Verdict::kBelow;
  s.loads = {below, saturated_load(150, {trial(150, 5000, 900.0), trial(150, 5000, 950.0)})};
  s.trials = 4;
  s.cost_s = 280;
  PeakReport r{8, &config, config.sample("disks=1,threads=1"), Target{0.95, 0.90}, "binsearch", 1, &s};

  nlohmann::json j = peak_json(r);
  CHECK(j["status"] == "bistable");
  CHECK(j["peak_rate"].get<double>() == 100);
  CHECK(j["peak_interval"]["high"].get<double>() == 140);
  CHECK(j["message"] == s.message);

  std::ostringstream out;
  print_peak(out, r);
  const std::string text = out.str();
  INFO(text);
  CHECK(text.find("bistable within [110, 140]/s") != std::string::npos);
  CHECK(text.find("peak rate λ* = 100.0 requests/s (the highest load below the bistable band)") !=
        std::string::npos);
  CHECK(text.find("[100.0, 140.0]") != std::string::npos);
}
