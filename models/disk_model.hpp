#pragma once
// The disk what-if module [001 §III-C.7]: an analytical disk built from four parameters, the
// maximum sequential and random read and write bandwidths, that scans an interleaved trace of
// disk I/Os (the buffer-cache module's miss stream, models/cache_sim.hpp) for sequential and
// random streams and assigns each I/O an expected service time. Pure: no clock, no process.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/io_trace.hpp"

namespace wb {

// Bandwidths in bytes/s, each finite and > 0.
struct DiskParams {
  double seq_read_bps = 0, seq_write_bps = 0;
  double rand_read_bps = 0, rand_write_bps = 0;
  // 0: a random I/O of s bytes takes s / random bandwidth (the plain four-parameter model).
  // r > 0: the random bandwidths were measured with r-byte I/Os, and a random I/O takes a
  // positioning time plus s / sequential bandwidth, with the positioning time chosen so that an
  // r-byte random I/O takes r / random bandwidth (see positioning_time).
  std::uint64_t random_io_size = 0;
};

// Throws InputError naming the first bandwidth that is not finite and > 0.
void check_disk_params(const DiskParams& disk);

// The positioning (seek and rotation) time of a random I/O of direction `kind` (read or write):
// t_pos = r / B_rand - r / B_seq with r = random_io_size, at least 0 (a device as fast at random
// as at sequential I/O has none); 0 when random_io_size is 0.
double positioning_time(const DiskParams& disk, IoKind kind);

// Service time of one I/O: sequential, size / B_seq; random, size / B_rand (random_io_size 0) or
// positioning_time + size / B_seq. Meta I/Os take 0 (they are not disk transfers here).
// positioning_time and disk_service_time REQUIRE params that pass check_disk_params.
double disk_service_time(const DiskParams& disk, IoKind kind, std::uint64_t size, bool sequential);

// Sequential-stream detection. An I/O continues a stream when it has the stream's file and
// direction and starts at the byte where the stream's last I/O ended; otherwise it is random and
// opens a stream of its own. At most max_streams streams are open; a new one replaces the least
// recently continued. The bound mirrors a device's or read-ahead's few tracked streams: an I/O
// that abuts a region left long ago pays a seek all the same. A stream stays open while fewer
// than max_streams other streams open between two of its I/Os.
struct StreamOptions {
  std::size_t max_streams = 32;
};

struct DiskIo {
  std::size_t op = 0;      // index of the I/O in the trace given
  std::size_t stream = 0;  // stream number, 0, 1, ... in order of opening
  bool sequential = false;
  double service_s = 0;
};

struct DiskPrediction {
  std::vector<DiskIo> ios;  // one per read or write of nonzero size, in start_s order
  double total_s = 0, read_s = 0, write_s = 0;
  std::uint64_t sequential_ios = 0, random_ios = 0;
  std::uint64_t sequential_bytes = 0, random_bytes = 0;
  std::size_t streams = 0;  // streams opened
};

// Classifies the reads and writes of `trace` (replayed in start_s order, stable) into streams and
// prices each with disk_service_time. Throws InputError for invalid params or max_streams 0.
DiskPrediction predict_disk(const std::vector<IoOp>& trace, const DiskParams& disk,
                            const StreamOptions& options = {});

// D_DISK of 001 §III-C.2: the disk time per request, prediction.total_s / requests, for the
// `requests` client requests that produced the trace. Throws InputError if requests is 0.
double disk_demand_per_request(const DiskPrediction& prediction, std::uint64_t requests);

}  // namespace wb
