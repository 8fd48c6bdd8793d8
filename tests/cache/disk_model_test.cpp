// The four-parameter disk [001 §III-C.7]: service times, the positioning-time variant, stream
// detection in an interleaved trace (with the bounded, LRU-replaced set of open streams), and the
// demand per request.
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "models/disk_model.hpp"

using namespace wb;

namespace {

// A disk with distinct figures in each direction, so a wrong pick shows.
DiskParams test_disk() {
  DiskParams d;
  d.seq_read_bps = 100e6, d.seq_write_bps = 80e6;
  d.rand_read_bps = 10e6, d.rand_write_bps = 5e6;
  return d;
}

IoOp disk_op(IoKind kind, const std::string& file, std::uint64_t offset, std::uint64_t size, double start) {
  return IoOp{kind, file, offset, size, start, 0};
}

}  // namespace

TEST_CASE("service time is size over the bandwidth of the I/O's direction and pattern") {
  DiskParams d = test_disk();
  CHECK(disk_service_time(d, IoKind::kRead, 1'000'000, true) == Approx(0.01));
  CHECK(disk_service_time(d, IoKind::kWrite, 1'000'000, true) == Approx(0.0125));
  CHECK(disk_service_time(d, IoKind::kRead, 1'000'000, false) == Approx(0.1));
  CHECK(disk_service_time(d, IoKind::kWrite, 1'000'000, false) == Approx(0.2));
  CHECK(disk_service_time(d, IoKind::kMeta, 1'000'000, false) == 0);
  CHECK(positioning_time(d, IoKind::kRead) == 0);
}

TEST_CASE("with a random I/O size, a random I/O is a positioning time plus a sequential transfer") {
  DiskParams d = test_disk();
  d.random_io_size = 4096;
  // t_pos = r/B_rand - r/B_seq: an r-byte random read still takes r/B_rand.
  const double t_pos = 4096 / 10e6 - 4096 / 100e6;
  CHECK(positioning_time(d, IoKind::kRead) == Approx(t_pos));
  CHECK(disk_service_time(d, IoKind::kRead, 4096, false) == Approx(4096 / 10e6));
  CHECK(disk_service_time(d, IoKind::kRead, 1 << 20, false) == Approx(t_pos + (1 << 20) / 100e6));
  CHECK(disk_service_time(d, IoKind::kWrite, 4096, false) == Approx(4096 / 5e6));
  // A device as fast at random as at sequential I/O has no positioning time.
  d.rand_read_bps = 200e6;
  CHECK(positioning_time(d, IoKind::kRead) == 0);
}

TEST_CASE("interleaved sequential streams are found among random I/Os") {
  // Three sequential streams (two readers of different files, one writer of a region of x) taken
  // in turn, with a random read of file z between every two stream I/Os. The random offsets are
  // whole MiB and 4 KiB long, so no random read starts where another I/O ended.
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::uint64_t> mib(0, 1 << 20);
  std::vector<IoOp> trace;
  const std::uint64_t n = 50, len = 65536;
  double t = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    trace.push_back(disk_op(IoKind::kRead, "x", i * len, len, t++));
    trace.push_back(disk_op(IoKind::kRead, "z", mib(rng) << 20, 4096, t++));
    trace.push_back(disk_op(IoKind::kRead, "y", (1 << 30) + i * len, len, t++));
    trace.push_back(disk_op(IoKind::kRead, "z", mib(rng) << 20, 4096, t++));
    trace.push_back(disk_op(IoKind::kWrite, "x", (1ULL << 32) + i * len, len, t++));
    trace.push_back(disk_op(IoKind::kRead, "z", mib(rng) << 20, 4096, t++));
  }
  // Out of start order in the vector: the module replays by start_s.
  std::swap(trace[0], trace[6]);
  DiskParams d = test_disk();
  DiskPrediction p = predict_disk(trace, d);
  REQUIRE(p.ios.size() == trace.size());
  CHECK(p.sequential_ios == 3 * (n - 1));
  CHECK(p.random_ios == 3 + 3 * n);
  CHECK(p.sequential_bytes == 3 * (n - 1) * len);
  std::map<std::string, std::size_t> stream_of;  // each sequential file region keeps one stream
  for (const DiskIo& io : p.ios) {
    const IoOp& op = trace[io.op];
    if (op.file == "z") {
      CHECK_FALSE(io.sequential);
      continue;
    }
    std::string key = op.file + to_string(op.kind);
    CHECK(io.sequential == (op.offset % (1 << 30) != 0));  // all but the first of each stream
    auto [it, fresh] = stream_of.try_emplace(key, io.stream);
    CHECK(it->second == io.stream);
  }
  CHECK(stream_of.size() == 3);
  CHECK(p.streams == 3 + 3 * n);  // each random I/O opens a stream that is never continued
  const double expected =
      (n - 1) * (len / 100e6 + len / 100e6 + len / 80e6) + 2 * len / 10e6 + len / 5e6 + 3 * n * 4096 / 10e6;
  CHECK(p.total_s == Approx(expected));
  CHECK(p.read_s + p.write_s == Approx(p.total_s));
  CHECK(p.write_s == Approx((n - 1) * len / 80e6 + len / 5e6));
  // D_DISK per request, for the 150 requests that produced the trace.
  CHECK(disk_demand_per_request(p, 150) == Approx(expected / 150));
  CHECK_THROWS_AS(disk_demand_per_request(p, 0), InputError);

  // Two open streams cannot track three taken in turn: each replaces the least recently
  // continued, which is the next one due, so every I/O looks random.
  std::vector<IoOp> three;
  for (IoOp op : trace)
    if (op.file != "z") three.push_back(op);
  CHECK(predict_disk(three, d, StreamOptions{2}).sequential_ios == 0);
  CHECK(predict_disk(three, d, StreamOptions{3}).sequential_ios == 3 * (n - 1));
}

TEST_CASE("the open stream replaced is the least recently continued, not the oldest") {
  // max 2 streams: A0 B0 A1 R A2 B1. R replaces B (A was continued after B opened), so A2 is
  // still sequential and B1 is not; replacing the oldest opened (A) would give the reverse.
  std::vector<IoOp> trace = {
      disk_op(IoKind::kRead, "a", 0, 4096, 0),    disk_op(IoKind::kRead, "b", 0, 4096, 1),
      disk_op(IoKind::kRead, "a", 4096, 4096, 2), disk_op(IoKind::kRead, "r", 0, 4096, 3),
      disk_op(IoKind::kRead, "a", 8192, 4096, 4), disk_op(IoKind::kRead, "b", 4096, 4096, 5)};
  DiskPrediction p = predict_disk(trace, test_disk(), StreamOptions{2});
  std::vector<bool> seq;
  for (const DiskIo& io : p.ios) seq.push_back(io.sequential);
  CHECK(seq == std::vector<bool>{false, false, true, false, true, false});
  // A read does not continue a write stream, nor a stream of another file.
  std::vector<IoOp> mixed = {disk_op(IoKind::kWrite, "a", 0, 4096, 0),
                             disk_op(IoKind::kRead, "a", 4096, 4096, 1),
                             disk_op(IoKind::kRead, "b", 8192, 4096, 2)};
  CHECK(predict_disk(mixed, test_disk()).sequential_ios == 0);
}

TEST_CASE("invalid disk parameters are input errors naming the parameter") {
  DiskParams d = test_disk();
  d.rand_write_bps = 0;
  CHECK_THROWS_WITH(predict_disk({}, d), Catch::Contains("random write bandwidth 0"));
  d = test_disk();
  d.seq_read_bps = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(check_disk_params(d), Catch::Contains("sequential read bandwidth inf"));
  CHECK_THROWS_AS(predict_disk({}, test_disk(), StreamOptions{0}), InputError);
}
