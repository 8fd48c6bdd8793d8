// The storage what-if inputs on arbitrary text: an I/O trace (CSV), fio's per-I/O latency log, a
// disk parameter file and one fio calibration run's JSON. Rejections are InputErrors; an accepted
// trace writes and reads back the same, and its LRU stack distances agree with an LRU replay.
#include <sstream>

#include "core/error.hpp"
#include "fuzz/fuzz_support.hpp"
#include "models/cache_sim.hpp"
#include "models/disk_calibration.hpp"
#include "models/disk_params_io.hpp"
#include "models/io_trace.hpp"

namespace {

void check_trace(const std::string& text) {
  std::vector<wb::IoOp> ops;
  try {
    std::istringstream in(text);
    ops = wb::read_io_trace(in, "fuzz.csv");
  } catch (const wb::InputError&) {
    return;
  }
  std::ostringstream out;
  wb::write_io_trace(out, ops);
  std::istringstream again(out.str());
  const std::vector<wb::IoOp> back = wb::read_io_trace(again, "again.csv");
  WB_FUZZ_CHECK(back.size() == ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    WB_FUZZ_CHECK(back[i].kind == ops[i].kind && back[i].file == ops[i].file &&
                  back[i].offset == ops[i].offset && back[i].size == ops[i].size);
  }
  wb::BlockTrace trace;
  try {
    trace = wb::block_trace(ops, 4096);
  } catch (const wb::InputError&) {  // offset + size overflows, or too many blocks
    return;
  }
  if (trace.refs.size() > 20000) return;  // keep one input quick
  const wb::HitCurve curve = wb::lru_hit_curve(trace);
  for (std::uint64_t blocks : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{64}}) {
    const wb::CacheRun run = wb::simulate_cache(trace, blocks, "lru");
    WB_FUZZ_CHECK(run.counts.hits == curve.at(blocks).hits);
    WB_FUZZ_CHECK(run.counts.read_hits == curve.at(blocks).read_hits);
    (void)wb::simulate_cache(trace, blocks, "clock");
    (void)wb::simulate_cache(trace, blocks, "2q");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return wb::fuzz::run([&] {
    const std::string text = wb::fuzz::text_of(data, size);
    check_trace(text);
    try {
      std::istringstream in(text);
      (void)wb::read_fio_lat_log(in, "fuzz.log", "f");
    } catch (const wb::InputError&) {
    }
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_discarded()) {
      try {
        const wb::DiskParamsFile f = wb::disk_params_from_json(j, "fuzz.json");
        wb::check_disk_params(f.params);  // what it accepts, the disk model takes
        const wb::DiskParamsFile back = wb::disk_params_from_json(wb::disk_params_to_json(f), "back.json");
        WB_FUZZ_CHECK(back.params.seq_read_bps == f.params.seq_read_bps &&
                      back.params.random_io_size == f.params.random_io_size);
      } catch (const wb::InputError&) {
      }
    }
    try {
      (void)wb::parse_fio_run(text, wb::DiskRun::kRandRead, 4096);
    } catch (const wb::InputError&) {
    }
  });
}
