#include "models/io_trace.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {

namespace {

constexpr std::string_view kHeader = "op,file,offset,size,start_s,duration_s";

// "<where>:<line>: <what>" as one InputError, the form every reader here reports.
[[noreturn]] void fail(const std::string& where, std::size_t line, const std::string& what) {
  throw InputError(fmt::format("{}:{}: {}", where, line, what));
}

// Splits at every `sep` (no quoting: file names must not hold the separator), trimming blanks
// around each field so "1, 2" (fio's logs) and "1,2" read alike.
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> fields;
  for (;;) {
    std::size_t at = text.find(sep);
    std::string_view f = text.substr(0, at);
    while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
    while (!f.empty() && (f.back() == ' ' || f.back() == '\t')) f.remove_suffix(1);
    fields.push_back(f);
    if (at == std::string_view::npos) return fields;
    text.remove_prefix(at + 1);
  }
}

// A line without its trailing '\r' (traces written on Windows) and whether it holds anything.
std::string_view chomp(const std::string& line) {
  std::string_view v = line;
  if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
  return v;
}

bool blank(std::string_view v) { return v.find_first_not_of(" \t") == std::string_view::npos; }

std::uint64_t whole(std::string_view field, const char* name, const std::string& where, std::size_t line) {
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (field.empty() || ec != std::errc() || ptr != field.data() + field.size())
    fail(where, line, fmt::format("{} '{}' is not a whole number of bytes", name, field));
  return v;
}

double seconds(std::string_view field, const char* name, const std::string& where, std::size_t line) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (field.empty() || ec != std::errc() || ptr != field.data() + field.size() || !std::isfinite(v) || v < 0)
    fail(where, line, fmt::format("{} '{}' is not a finite number of seconds >= 0", name, field));
  return v;
}

void check_extent(const IoOp& op, const std::string& where, std::size_t line) {
  if (op.size > std::numeric_limits<std::uint64_t>::max() - op.offset)
    fail(where, line, fmt::format("offset {} + size {} overflows", op.offset, op.size));
}

}  // namespace

const char* to_string(IoKind kind) {
  switch (kind) {
    case IoKind::kRead: return "read";
    case IoKind::kWrite: return "write";
    case IoKind::kMeta: return "meta";
  }
  return "?";
}

std::vector<IoOp> read_io_trace(std::istream& in, const std::string& where) {
  std::vector<IoOp> ops;
  std::string line;
  std::size_t number = 0;
  if (!std::getline(in, line)) fail(where, 1, fmt::format("empty: expected the header '{}'", kHeader));
  ++number;
  if (chomp(line) != kHeader)
    fail(where, number, fmt::format("header '{}' is not '{}'", chomp(line), kHeader));
  while (std::getline(in, line)) {
    ++number;
    std::string_view text = chomp(line);
    if (blank(text)) continue;  // a trailing empty line is not an operation
    std::vector<std::string_view> f = split(text, ',');
    if (f.size() != 6) fail(where, number, fmt::format("{} fields, expected 6 ({})", f.size(), kHeader));
    IoOp op;
    if (f[0] == "read")
      op.kind = IoKind::kRead;
    else if (f[0] == "write")
      op.kind = IoKind::kWrite;
    else if (f[0] == "meta")
      op.kind = IoKind::kMeta;
    else
      fail(where, number, fmt::format("op '{}' is not read, write or meta", f[0]));
    if (f[1].empty()) fail(where, number, "file is empty");
    op.file = std::string(f[1]);
    op.offset = whole(f[2], "offset", where, number);
    op.size = whole(f[3], "size", where, number);
    check_extent(op, where, number);
    op.start_s = seconds(f[4], "start_s", where, number);
    op.duration_s = seconds(f[5], "duration_s", where, number);
    ops.push_back(std::move(op));
  }
  if (in.bad()) fail(where, number, "read error");
  return ops;
}

std::vector<IoOp> read_io_trace_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) throw InputError(fmt::format("{}: cannot open the I/O trace", path));
  return read_io_trace(in, path);
}

void write_io_trace(std::ostream& out, const std::vector<IoOp>& ops) {
  out << kHeader << '\n';
  for (const IoOp& op : ops) {
    // A comma or line break would make the line unreadable; refuse rather than write it.
    if (op.file.empty() || op.file.find_first_of(",\r\n") != std::string::npos)
      throw Error(fmt::format("I/O trace: file name '{}' is empty or holds a comma or line break", op.file));
    // {} prints the shortest text that reads back as the same double.
    out << fmt::format("{},{},{},{},{},{}\n", to_string(op.kind), op.file, op.offset, op.size, op.start_s,
                       op.duration_s);
  }
}

// fio's log lines [fio(1) LOG FILE FORMATS]: time (ms), value (latency in ns for a latency log),
// data direction (0 read, 1 write, 2 trim), block size (bytes), offset (bytes, with log_offset=1),
// then, by version and options, command priority and issue time, which are not needed here.
std::vector<IoOp> read_fio_lat_log(std::istream& in, const std::string& where, const std::string& file) {
  std::vector<IoOp> ops;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string_view text = chomp(line);
    if (blank(text)) continue;
    std::vector<std::string_view> f = split(text, ',');
    if (f.size() < 5 || f.size() > 7)
      fail(where, number,
           fmt::format("{} fields, expected 5 to 7 (time, latency, ddir, bs, offset[, prio[, issue]]; "
                       "was the log written with --log_offset=1?)",
                       f.size()));
    std::uint64_t time_ms = whole(f[0], "time", where, number);
    std::uint64_t latency_ns = whole(f[1], "latency", where, number);
    std::uint64_t ddir = whole(f[2], "data direction", where, number);
    IoOp op;
    op.file = file;
    if (ddir == 0)
      op.kind = IoKind::kRead;
    else if (ddir == 1)
      op.kind = IoKind::kWrite;
    else
      fail(where, number, fmt::format("data direction {} is not 0 (read) or 1 (write)", f[2]));
    op.size = whole(f[3], "block size", where, number);
    op.offset = whole(f[4], "offset", where, number);
    check_extent(op, where, number);
    // fio stamps a latency sample when the I/O completes, so the I/O started `latency` earlier;
    // the ms resolution of the stamp can put that start before 0.
    op.duration_s = static_cast<double>(latency_ns) * 1e-9;
    op.start_s = std::max(0.0, static_cast<double>(time_ms) * 1e-3 - op.duration_s);
    ops.push_back(std::move(op));
  }
  if (in.bad()) fail(where, number, "read error");
  return ops;
}

}  // namespace wb
