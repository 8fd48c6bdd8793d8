#pragma once
// HdrHistogram interval logs (the HistogramLogWriter text format: comment lines starting with '#',
// an optional CSV header, then one line per interval "[Tag=T,]start,length,max,HISTFAAA..."
// whose last field is a base64, zlib-compressed histogram in the V2 encoding) — what many load
// generators write — read into workbench's LatencyHistogram for the `command` generator
// ([workload.output] format = "hdr-log").
// Each recorded HdrHistogram value is taken at the middle of its equivalence range and converted
// to nanoseconds with `unit_ns`; LatencyHistogram's own buckets (1/256 relative error) then hold it.
#include <string>

#include "workloads/histogram.hpp"

namespace wb {

struct HdrLog {
  LatencyHistogram histogram;  // every kept interval's counts
  std::size_t intervals = 0;   // intervals kept
  std::size_t skipped = 0;     // intervals that started within the warm-up
};

// Sums the intervals of `text` that start at or after `warmup_s` (start times relative to the
// first interval's). Throws InputError naming the line for a malformed line, a bad encoding or a
// histogram that claims more than it holds.
HdrLog read_hdr_log(const std::string& text, double unit_ns, double warmup_s);

}  // namespace wb
