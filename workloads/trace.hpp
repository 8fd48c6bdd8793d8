#pragma once
// TraceWriter: `wbload --trace FILE`, one CSV line per operation counted in the measurement window
// and completed in time, in the form models/io_trace.hpp reads (header "op,file,offset,size,
// start_s,duration_s"; docs/storage.md) so the storage what-if modules can replay a workload.
// wbload stays stand-alone, so it writes the CSV itself; tests read it back with wb::read_io_trace.
// Threads: each worker fills its own vector of TraceRecord; write() runs once, after the run.
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "workloads/mix.hpp"

namespace wb {

struct TraceRecord {
  OpKind kind = OpKind::kNoop;
  std::uint32_t size = 0;
  std::uint64_t key = 0;  // the "file" column, as a decimal number
  std::uint64_t offset = 0;
  std::uint64_t start_ns = 0;    // intended send time, from the start of the measurement window
  std::uint64_t latency_ns = 0;  // from the intended send time (no coordinated omission)
};

// "read", "write" or "meta": reads and GETs read, writes, POSTs and SETs write, the rest is meta.
const char* trace_op(OpKind kind);

class TraceWriter {
 public:
  // Opens (truncates) `path` before the run, so a bad path fails at once: wb::InputError.
  explicit TraceWriter(std::string path);
  // Merges the threads' records by start time and writes them; returns how many. wb::Error when
  // the file cannot be written.
  std::uint64_t write(std::vector<std::vector<TraceRecord>> parts);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ofstream out_;
};

}  // namespace wb
