// The generator adapters' output parsers (harness/generator_adapter.hpp) on arbitrary text: the first
// byte picks pgbench's per-transaction log, a command's JSON through a fixed pointer map, an
// HdrHistogram interval log or fio's json+ output (its value modulo 4). Rejections are
// InputErrors. A parsed pgbench log, HdrHistogram log or fio output is consistent by construction
// (it passes check_result); a parsed JSON output holds exactly `completed` latencies.
#include "core/error.hpp"
#include "fuzz/fuzz_support.hpp"
#include "harness/generator_adapter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  return wb::fuzz::run([&] {
    wb::GeneratorRun run;
    run.rate = 100;
    run.duration_s = 2;
    run.warmup_s = 1;
    run.timeout_s = 0.5;
    const std::string text = wb::fuzz::text_of(data + 1, size - 1);
    // A parser whose results are consistent by construction: what it accepts passes check_result.
    auto consistent = [](auto parse) {
      wb::LoadResult r;
      try {
        r = parse();
      } catch (const wb::InputError&) {
        return;
      }
      wb::check_result(r);
      WB_FUZZ_CHECK(r.histogram.count() == r.completed);
    };
    wb::JsonOutputMap hdr;
    hdr.format = "hdr-log";
    hdr.latency_unit = "us";
    switch (data[0] % 4) {
      case 0: return consistent([&] { return wb::parse_pgbench_log(text, run); });
      case 2: return consistent([&] { return wb::parse_hdr_output(text, hdr, run); });
      case 3: return consistent([&] { return wb::parse_fio_json(text, run); });
      default: break;
    }
    wb::JsonOutputMap map;
    map.completed = "/ok";
    map.latencies = "/lat";
    map.sent = "/sent";
    map.errors = "/err";
    map.timeouts = "/late";
    map.achieved_rate = "/rate";
    try {
      wb::LoadResult r = wb::parse_json_output(text, map, run);
      WB_FUZZ_CHECK(r.histogram.count() == r.completed);
      wb::check_result(r);  // completed > sent and the like are the runner's to reject
    } catch (const wb::InputError&) {
    }
  });
}
