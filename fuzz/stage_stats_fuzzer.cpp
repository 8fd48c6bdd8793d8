// refserver's stats object (rpc::Op::kStats) as the controller reads it after a trial: the
// per-stage means of harness/sut_stage_stats and the calibrated demands of
// experiment/refserver_stats, on arbitrary JSON. Rejections are wb::Errors.
#include "core/error.hpp"
#include "experiment/refserver_stats.hpp"
#include "fuzz/fuzz_support.hpp"
#include "harness/sut_stage_stats.hpp"

namespace {

// A [model] with the centers the calibration fills from refserver's stages.
wb::QueueNetwork refserver_model() {
  wb::QueueNetwork net;
  wb::ServiceCenter cpu, disk, net_center;
  cpu.name = "cpu";
  disk.name = "disk";
  net_center.name = "net";
  net_center.discipline = wb::Discipline::kDelay;
  net.centers = {cpu, disk, net_center};
  return net;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const wb::QueueNetwork net = refserver_model();
  return wb::fuzz::run([&] {
    const nlohmann::json stats = nlohmann::json::parse(data, data + size, nullptr, false);
    if (stats.is_discarded()) return;
    try {
      (void)wb::stage_means_from_refserver_stats(stats);
    } catch (const wb::Error&) {
    }
    wb::Sample at;
    at.set("threads", "4");
    try {
      (void)wb::demands_from_refserver_stats(stats, net, at, 1.5);
    } catch (const wb::Error&) {
    }
    try {
      (void)wb::demands_from_utilization(stats, net, at);
    } catch (const wb::Error&) {
    }
  });
}
