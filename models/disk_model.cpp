#include "models/disk_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"

namespace wb {

namespace {

struct Stream {
  std::string file;
  IoKind kind = IoKind::kRead;
  std::uint64_t end = 0;   // the byte after the stream's last I/O
  std::uint64_t used = 0;  // when it was last opened or continued (an I/O counter)
  std::size_t number = 0;
};

double sequential_bps(const DiskParams& d, IoKind k) {
  return k == IoKind::kWrite ? d.seq_write_bps : d.seq_read_bps;
}
double random_bps(const DiskParams& d, IoKind k) {
  return k == IoKind::kWrite ? d.rand_write_bps : d.rand_read_bps;
}

}  // namespace

void check_disk_params(const DiskParams& disk) {
  const std::pair<const char*, double> named[] = {{"sequential read", disk.seq_read_bps},
                                                  {"sequential write", disk.seq_write_bps},
                                                  {"random read", disk.rand_read_bps},
                                                  {"random write", disk.rand_write_bps}};
  for (const auto& [name, bps] : named)
    if (!std::isfinite(bps) || !(bps > 0))
      throw InputError(
          fmt::format("disk model: {} bandwidth {} is not a finite number of bytes/s > 0", name, bps));
}

// [001 §III-C.7] gives only the four bandwidths; reading the random ones as measured at r-byte
// I/Os splits an I/O's time into positioning and transfer, t(s) = t_pos + s / B_seq, which keeps
// t(r) = r / B_rand and lets larger random I/Os approach the sequential rate as on a real disk.
double positioning_time(const DiskParams& disk, IoKind kind) {
  if (disk.random_io_size == 0 || kind == IoKind::kMeta) return 0;
  const auto r = static_cast<double>(disk.random_io_size);
  return std::max(0.0, r / random_bps(disk, kind) - r / sequential_bps(disk, kind));
}

double disk_service_time(const DiskParams& disk, IoKind kind, std::uint64_t size, bool sequential) {
  if (kind == IoKind::kMeta) return 0;
  const auto s = static_cast<double>(size);
  if (sequential) return s / sequential_bps(disk, kind);
  if (disk.random_io_size == 0) return s / random_bps(disk, kind);
  return positioning_time(disk, kind) + s / sequential_bps(disk, kind);
}

DiskPrediction predict_disk(const std::vector<IoOp>& trace, const DiskParams& disk,
                            const StreamOptions& options) {
  check_disk_params(disk);
  if (options.max_streams == 0) throw InputError("disk model: at most 0 open streams; give at least 1");
  std::vector<std::size_t> order(trace.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return trace[a].start_s < trace[b].start_s; });
  DiskPrediction p;
  std::vector<Stream> open;  // at most max_streams: a linear scan is cheaper than a map
  std::uint64_t clock = 0;
  for (std::size_t i : order) {
    const IoOp& io = trace[i];
    if (io.kind == IoKind::kMeta || io.size == 0) continue;
    ++clock;
    auto it = std::find_if(open.begin(), open.end(), [&](const Stream& s) {
      return s.end == io.offset && s.kind == io.kind && s.file == io.file;
    });
    const bool sequential = it != open.end();
    if (!sequential) {
      if (open.size() < options.max_streams) {
        it = open.emplace(open.end());
      } else {  // replace the least recently continued stream
        it = std::min_element(open.begin(), open.end(),
                              [](const Stream& a, const Stream& b) { return a.used < b.used; });
      }
      *it = Stream{io.file, io.kind, 0, 0, p.streams++};
    }
    it->end = io.offset + io.size;
    it->used = clock;
    DiskIo d{i, it->number, sequential, disk_service_time(disk, io.kind, io.size, sequential)};
    p.total_s += d.service_s;
    (io.kind == IoKind::kWrite ? p.write_s : p.read_s) += d.service_s;
    (sequential ? p.sequential_ios : p.random_ios) += 1;
    (sequential ? p.sequential_bytes : p.random_bytes) += io.size;
    p.ios.push_back(d);
  }
  return p;
}

double disk_demand_per_request(const DiskPrediction& prediction, std::uint64_t requests) {
  if (requests == 0) throw InputError("disk model: the demand per request needs at least 1 request");
  return prediction.total_s / static_cast<double>(requests);
}

}  // namespace wb
