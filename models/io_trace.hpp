#pragma once
// Per-operation I/O records [001 §III-C.6, 004 §3], what the cache and disk modules replay and
// classification labels; pure parsing. The file is CSV, header "op,file,offset,size,start_s,
// duration_s", one operation a line, in any order of start_s (format: docs/storage.md).
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace wb {

enum class IoKind { kRead, kWrite, kMeta };

struct IoOp {
  IoKind kind = IoKind::kRead;
  std::string file;
  std::uint64_t offset = 0;  // bytes
  std::uint64_t size = 0;    // bytes
  double start_s = 0;
  double duration_s = 0;
};

const char* to_string(IoKind kind);

// Reads a trace in the CSV form above. Throws InputError naming "<where>:<line>: <what>" for a
// missing or different header, a wrong field count, an unknown op, a number that is not one.
std::vector<IoOp> read_io_trace(std::istream& in, const std::string& where);
std::vector<IoOp> read_io_trace_file(const std::string& path);
// Writes the CSV form above (numbers so that read_io_trace gives the same ops back). Throws
// wb::Error for a file name that is empty or holds a comma or line break.
void write_io_trace(std::ostream& out, const std::vector<IoOp>& ops);

// Reads fio's per-I/O latency log (--write_lat_log with --log_offset=1, no log_avg_msec): lines
// "time_ms, latency_ns, ddir, bs, offset[, prio[, issue_time]]" [fio(1) LOG FILE FORMATS], all
// naming `file`. fio stamps each line when the I/O completes, so start_s = time_ms/1000 - latency
// (at least 0) and duration_s = latency. Throws InputError "<where>:<line>: <what>" for a line of
// fewer than 5 or more than 7 fields, a number that is not one, or a ddir other than 0 or 1 (trim).
std::vector<IoOp> read_fio_lat_log(std::istream& in, const std::string& where, const std::string& file);

}  // namespace wb
