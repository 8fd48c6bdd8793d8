// The I/O trace CSV reader and writer, and the fio latency-log reader on a log that fio 3.33
// wrote on this project's test machine (fio_lat.log, from capture.sh).
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "models/cache_sim.hpp"
#include "models/io_trace.hpp"

using namespace wb;

namespace {

std::vector<IoOp> parse_trace(const std::string& text) {
  std::istringstream in(text);
  return read_io_trace(in, "t.csv");
}

std::string trace_error(const std::string& text) {
  try {
    (void)parse_trace(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string fio_error(const std::string& text) {
  std::istringstream in(text);
  try {
    (void)read_fio_lat_log(in, "lat.log", "data");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* const kTraceHeader = "op,file,offset,size,start_s,duration_s\n";

}  // namespace

TEST_CASE("an I/O trace is read field by field, out of start order, with CRLF and blank lines") {
  auto ops = parse_trace(std::string(kTraceHeader) +
                         "read,db/a.dat,4096,8192,1.5,0.002\r\n"
                         "\n"
                         "write, log , 0, 512, 0.25, 1e-4\n"
                         "meta,db/a.dat,0,0,2,0\n");
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].kind == IoKind::kRead);
  CHECK(ops[0].file == "db/a.dat");
  CHECK(ops[0].offset == 4096);
  CHECK(ops[0].size == 8192);
  CHECK(ops[0].start_s == 1.5);
  CHECK(ops[0].duration_s == 0.002);
  CHECK(ops[1].kind == IoKind::kWrite);
  CHECK(ops[1].file == "log");  // blanks around a field are not part of it
  CHECK(ops[1].start_s == 0.25);
  CHECK(ops[1].duration_s == 1e-4);
  CHECK(ops[2].kind == IoKind::kMeta);
  CHECK(std::string(to_string(ops[2].kind)) == "meta");
}

TEST_CASE("an I/O trace written and read back gives the same operations") {
  std::vector<IoOp> ops = {{IoKind::kRead, "a", 0, 4096, 0.1, 0.003},
                           {IoKind::kWrite, "b/c", 1ULL << 40, 123, 1.0 / 3.0, 2e-9},
                           {IoKind::kMeta, "a", 0, 0, 7, 0}};
  std::ostringstream out;
  write_io_trace(out, ops);
  auto back = parse_trace(out.str());
  REQUIRE(back.size() == ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    CHECK(back[i].kind == ops[i].kind);
    CHECK(back[i].file == ops[i].file);
    CHECK(back[i].offset == ops[i].offset);
    CHECK(back[i].size == ops[i].size);
    CHECK(back[i].start_s == ops[i].start_s);  // exact: the writer prints round-trip digits
    CHECK(back[i].duration_s == ops[i].duration_s);
  }
  std::ostringstream bad;
  CHECK_THROWS_AS(write_io_trace(bad, {{IoKind::kRead, "a,b", 0, 1, 0, 0}}), Error);
}

TEST_CASE("I/O trace errors name the file and line") {
  struct Case {
    std::string text, message;
  };
  const std::string h = kTraceHeader;
  std::vector<Case> cases = {
      {"", "t.csv:1: empty"},
      {"op,file,offset,size,start,duration\n", "t.csv:1: header 'op,file,offset,size,start,duration'"},
      {h + "read,a,0,1,0,0\n\nread,a,0,1,0\n", "t.csv:4: 5 fields, expected 6"},
      {h + "append,a,0,1,0,0\n", "t.csv:2: op 'append' is not read, write or meta"},
      {h + "read,,0,1,0,0\n", "t.csv:2: file is empty"},
      {h + "read,a,0x10,1,0,0\n", "t.csv:2: offset '0x10' is not a whole number"},
      {h + "read,a,0,-1,0,0\n", "t.csv:2: size '-1' is not a whole number"},
      {h + "read,a,0,1,nan,0\n", "t.csv:2: start_s 'nan' is not a finite number"},
      {h + "read,a,0,1,0,-0.5\n", "t.csv:2: duration_s '-0.5' is not a finite number of seconds >= 0"},
      {h + "read,a,0,1,0,1s\n", "t.csv:2: duration_s '1s'"},
      {h + "read,a,18446744073709551615,2,0,0\n", "t.csv:2: offset 18446744073709551615 + size 2 overflows"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK_THAT(trace_error(c.text), Catch::StartsWith(c.message));
  }
  CHECK_THROWS_WITH(read_io_trace_file("/nonexistent/trace.csv"), Catch::Contains("cannot open"));
}

TEST_CASE("fio's latency log with offsets, as fio 3.33 wrote it, reads as one op per I/O") {
  const std::string path = std::string(WB_SOURCE_DIR) + "/tests/cache/fio_lat.log";
  std::ifstream in(path);
  REQUIRE(in.is_open());
  auto ops = read_fio_lat_log(in, path, "data");
  // capture.sh: 0.5 s of 4 KiB psync I/O on an 8 MiB file at 150 reads/s and 50 writes/s.
  REQUIRE(ops.size() == 100);
  // The first two lines: "0, 133114, 1, 4096, 503808, 0" and "5, 4574795, 0, 4096, 6209536, 0".
  CHECK(ops[0].kind == IoKind::kWrite);
  CHECK(ops[0].offset == 503808);
  CHECK(ops[0].duration_s == Approx(133114e-9));
  CHECK(ops[0].start_s == 0);  // completed at 0 ms: the start is clamped to the trace's start
  CHECK(ops[1].kind == IoKind::kRead);
  CHECK(ops[1].offset == 6209536);
  CHECK(ops[1].start_s == Approx(0.005 - 4574795e-9));
  std::size_t reads = 0;
  std::set<std::uint64_t> offsets;
  for (const IoOp& op : ops) {
    reads += op.kind == IoKind::kRead;
    CHECK(op.file == "data");
    CHECK(op.size == 4096);
    CHECK(op.offset % 4096 == 0);
    CHECK(op.offset + op.size <= (8u << 20));
    CHECK(op.start_s <= 0.6);
    CHECK(op.duration_s > 0);
    offsets.insert(op.offset);
  }
  CHECK(reads == 75);
  // The log feeds the cache module: one block per I/O, each offset one block.
  BlockTrace trace = block_trace(ops);
  CHECK(trace.refs.size() == 100);
  CHECK(trace.distinct_blocks == offsets.size());
  HitCurve curve = lru_hit_curve(trace);
  CHECK(curve.at(1u << 20).hits == 100 - offsets.size());
}

TEST_CASE("fio latency-log errors name the log and line") {
  CHECK_THAT(fio_error("1, 100, 0, 4096, 0, 0\n2, 100, 0, 4096\n"), Catch::StartsWith("lat.log:2: 4 fields"));
  CHECK_THAT(fio_error("1, 100, 0, 4096, 0, 0\n\n3, 100, 2, 4096, 0, 0\n"),
             Catch::StartsWith("lat.log:3: data direction 2 is not 0 (read) or 1 (write)"));
  CHECK_THAT(fio_error("1, 1.5, 0, 4096, 0, 0\n"), Catch::StartsWith("lat.log:1: latency '1.5'"));
  CHECK_THAT(fio_error("1, 2, 0, 4096, 0, 0, 0, 0\n"), Catch::StartsWith("lat.log:1: 8 fields"));
  // Newer fio adds the issue time after the priority: 7 fields read as well.
  std::istringstream seven("10, 2000000, 1, 8192, 16384, 0, 8000000\n");
  auto ops = read_fio_lat_log(seven, "lat.log", "f");
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].kind == IoKind::kWrite);
  CHECK(ops[0].size == 8192);
  CHECK(ops[0].offset == 16384);
  CHECK(ops[0].start_s == Approx(0.008));
}
