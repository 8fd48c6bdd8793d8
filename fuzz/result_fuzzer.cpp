// wbload's JSON result as the controller reads it from each generator (parse_result) on arbitrary
// text. Rejections are InputErrors; an accepted result is consistent and survives
// to_json -> parse_result unchanged, and merges and prints without failing.
#include "core/error.hpp"
#include "fuzz/fuzz_support.hpp"
#include "workloads/result.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return wb::fuzz::run([&] {
    wb::LoadResult r;
    try {
      r = wb::parse_result(wb::fuzz::text_of(data, size));
    } catch (const wb::InputError&) {
      return;
    }
    WB_FUZZ_CHECK(r.histogram.count() == r.completed);
    WB_FUZZ_CHECK(r.errors.count("total") == 0);
    const nlohmann::json out = wb::to_json(r);
    const wb::LoadResult back = wb::parse_result(out.dump());
    WB_FUZZ_CHECK(back.histogram == r.histogram && back.errors == r.errors &&
                  back.intervals.size() == r.intervals.size());
    WB_FUZZ_CHECK(wb::to_json(back) == out);
    (void)wb::to_text(r);
    (void)wb::merge_results({r, back});
  });
}
