#include "workloads/trace.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "core/error.hpp"

namespace wb {
namespace {

// The shortest text that from_chars (io_trace.cpp's reader) turns back into the same double.
void append_seconds(std::string& line, std::uint64_t ns) {
  std::array<char, 32> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), static_cast<double>(ns) / 1e9);
  line.append(buf.data(), ec == std::errc() ? end : buf.data());
}

}  // namespace

const char* trace_op(OpKind kind) {
  switch (kind) {
    case OpKind::kRead:
    case OpKind::kGet: return "read";
    case OpKind::kWrite:
    case OpKind::kPost:
    case OpKind::kSet: return "write";
    case OpKind::kNoop:
    case OpKind::kMetadata: return "meta";
  }
  return "meta";
}

TraceWriter::TraceWriter(std::string path) : path_(std::move(path)), out_(path_, std::ios::trunc) {
  if (!out_) throw InputError("--trace " + path_ + ": cannot open for writing: " + std::strerror(errno));
}

std::uint64_t TraceWriter::write(std::vector<std::vector<TraceRecord>> parts) {
  std::vector<TraceRecord> records;
  for (auto& p : parts) records.insert(records.end(), p.begin(), p.end());
  parts.clear();
  std::stable_sort(records.begin(), records.end(),
                   [](const TraceRecord& a, const TraceRecord& b) { return a.start_ns < b.start_ns; });
  out_ << "op,file,offset,size,start_s,duration_s\n";
  std::string line;
  for (const TraceRecord& r : records) {
    line.assign(trace_op(r.kind));
    line.append(",").append(std::to_string(r.key));
    line.append(",").append(std::to_string(r.offset));
    line.append(",").append(std::to_string(r.size));
    line.append(",");
    append_seconds(line, r.start_ns);
    line.append(",");
    append_seconds(line, r.latency_ns);
    line.append("\n");
    out_ << line;
  }
  out_.close();
  if (!out_) throw Error("--trace " + path_ + ": write failed");
  return records.size();
}

}  // namespace wb
