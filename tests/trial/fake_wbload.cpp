// Stands in for wbload in tests of generator-output validation: takes wbload's command line,
// prints at once the result wbload would print for a server that answers every request in 1 ms,
// then spoils it as `--fake-case CASE` says (the config passes it through [workload] args):
//   good               the honest result
//   negative_sum       histogram.sum < 0, a mean of -20000 ms
//   nan_rate           achieved_rate written as NaN (not JSON)
//   huge_number        achieved_rate 1e400 (overflows a double)
//   huge_rate          achieved_rate 1e15/s
//   negative_rate      offered_rate -100
//   zero_duration      duration_s 0
//   completed_gt_sent  completed (and the histogram) one more than sent
//   count_mismatch     histogram.count one less than completed
//   mean_above_max     histogram.sum puts the mean above max
//   too_many           sent and completed 100 times what rate x duration offers
//   beyond_timeout     a latency above --timeout
//   wrong_rate         offered_rate twice the --rate asked for
// Exit 2 for a command line it does not understand.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>

#include "workloads/result.hpp"

int main(int argc, char** argv) {
  double rate = 0, duration = 0, timeout = 5;
  std::string fake = "good";
  for (int i = 1; i + 1 < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rate") rate = std::stod(argv[i + 1]);
    if (a == "--duration") duration = std::stod(argv[i + 1]);
    if (a == "--timeout") timeout = std::stod(argv[i + 1]);
    if (a == "--fake-case") fake = argv[i + 1];
  }
  if (!(rate > 0) || !(duration > 0)) {
    std::cerr << "fake_wbload: needs --rate and --duration\n";
    return 2;
  }
  wb::LoadResult r;
  r.offered_rate = rate;
  r.duration_s = duration;
  r.sent = r.completed = static_cast<std::uint64_t>(std::llround(rate * duration));
  if (fake == "too_many") r.sent = r.completed = r.completed * 100;
  r.achieved_rate = static_cast<double>(r.completed) / duration;
  r.histogram.record_n(1000000, r.completed);  // 1 ms each
  if (fake == "completed_gt_sent") {
    r.histogram.record(1000000);
    r.completed += 1;
    r.errors["closed"] = 1;  // keeps sent <= completed + errors + timeouts
  }
  if (fake == "beyond_timeout") {
    r.histogram.record(static_cast<std::uint64_t>((timeout + 1) * 1e9));
    ++r.sent;
    ++r.completed;
  }
  nlohmann::json j = wb::to_json(r);
  if (fake == "negative_sum") {
    j["histogram"]["sum"] = -20000.0 * 1e6 * static_cast<double>(r.completed);
  } else if (fake == "huge_rate") {
    j["achieved_rate"] = 1e15;
  } else if (fake == "negative_rate") {
    j["offered_rate"] = -100.0;
  } else if (fake == "zero_duration") {
    j["duration_s"] = 0.0;
  } else if (fake == "count_mismatch") {
    j["completed"] = r.completed + 1;
    j["sent"] = r.sent + 1;
  } else if (fake == "mean_above_max") {
    j["histogram"]["sum"] = 3e6 * static_cast<double>(r.completed);
  } else if (fake == "wrong_rate") {
    j["offered_rate"] = 2 * rate;
  }
  std::string text = j.dump();
  if (fake == "nan_rate" || fake == "huge_number") {
    std::string key = "\"achieved_rate\":";
    auto at = text.find(key) + key.size();
    auto end = text.find(',', at);
    text.replace(at, end - at, fake == "nan_rate" ? "NaN" : "1e400");
  }
  std::cout << text << "\n";
  return 0;
}
