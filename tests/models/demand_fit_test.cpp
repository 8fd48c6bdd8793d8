// Recalibration of a queue network's demand from measured λ* (models/demand_fit): the multiplier
// solved from one λ*, the one nearest 1 when a center is not the bottleneck, the curve over a
// factor, interpolated between levels and refitted without a held-out point, and several curves
// applied at once.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/demand_fit.hpp"
#include "models/open_network.hpp"

using namespace wb;

namespace {

ServiceCenter fcfs(const std::string& name, double demand_ms) {
  ServiceCenter c;
  c.name = name;
  c.demand_ms = Expr::constant(demand_ms);
  return c;
}

Sample at(const std::string& threads) {
  Sample s;
  s.set("threads", threads);
  return s;
}

}  // namespace

TEST_CASE("the demand multiplier is solved from a measured λ*: an M/M/1 disk twice as slow") {
  QueueNetwork net;
  net.centers = {fcfs("disk", 10)};
  const Sample s = at("1");
  // M/M/1, R = S / (1 - λS): with R_sat 40 ms, λ* = (1 - S/R_sat)/S = 75/s at 10 ms, 25/s at 20 ms.
  CHECK(predicted_peak(net, s, 40) == Approx(75));
  SolvedMultiplier k = solve_multiplier(net, s, "disk", 40, 25);
  CHECK(k.exact);
  CHECK(k.k == Approx(2).epsilon(1e-6));
  // Faster than the model: less demand.
  k = solve_multiplier(net, s, "disk", 40, (1 - 5.0 / 40) / 5 * 1000);
  CHECK(k.exact);
  CHECK(k.k == Approx(0.5).epsilon(1e-6));
  CHECK(solve_multiplier(net, s, "disk", 40, 75).k == Approx(1));
}

TEST_CASE("a center that is not the bottleneck: the multiplier nearest 1, or none when it cannot explain") {
  QueueNetwork net;
  ServiceCenter cpu = fcfs("cpu", 1);
  cpu.servers = Expr::constant(8);  // far from saturating: λ* barely depends on its demand
  net.centers = {cpu, fcfs("disk", 10)};
  const Sample s = at("1");
  const double peak = predicted_peak(net, s, 40);
  // Measured 60% of the model's λ*: the CPU must become the bottleneck, which takes k well above
  // 1, and the smallest such k is the answer (any larger one fits too).
  SolvedMultiplier k = solve_multiplier(net, s, "cpu", 40, 0.6 * peak);
  REQUIRE(k.exact);
  CHECK(k.k > 1.5);
  CHECK(predicted_peak(scale_demand(net, s, "cpu", k.k), s, 40) == Approx(0.6 * peak).epsilon(1e-4));
  CHECK(predicted_peak(scale_demand(net, s, "cpu", k.k * 0.98), s, 40) > 0.6 * peak);
  // Twice the model's λ*: no CPU demand, however small, gets there: the disk bounds it.
  k = solve_multiplier(net, s, "cpu", 40, 2 * peak);
  CHECK_FALSE(k.exact);
  CHECK(k.k == Approx(1 / kMaxDemandMultiplier));
  CHECK_THROWS(scale_demand(net, s, "nosuch", 2));
}

TEST_CASE("a demand curve interpolates between measured levels and refits without a held-out point") {
  // log k = 0 at threads 1, log 2 at 16 (two samples: log 1.5 and log (8/3), mean log 2), log 4 at 64.
  std::vector<CurvePoint> points{
      {at("1"), 0}, {at("16"), std::log(1.5)}, {at("16"), std::log(8.0 / 3)}, {at("64"), std::log(4.0)}};
  DemandCurve c = fit_demand_curve("disk", "threads", true, points);
  REQUIRE(c.knots.size() == 3);
  CHECK(c.points == 4);
  CHECK(std::exp(c.log_multiplier(at("16"))) == Approx(2));
  // The multiplier linear in the factor between levels, the nearest level's beyond them.
  CHECK(std::exp(c.log_multiplier(at("40"))) == Approx(3));
  CHECK(c.log_multiplier(at("100")) == Approx(std::log(4.0)));
  CHECK(c.log_multiplier(at("0.5")) == Approx(0));
  // Without the one sample at 64, the curve ends at 16.
  DemandCurve held = fit_demand_curve("disk", "threads", true, points, 3);
  CHECK(held.knots.size() == 2);
  CHECK(held.log_multiplier(at("64")) == Approx(std::log(2.0)));
  CHECK(c.describe() == "disk demand x1.00 at threads=1 x2.00 at threads=16 x4.00 at threads=64");

  // A categorical factor: by level, the configured demand at a level nobody measured.
  Sample web, mail;
  web.set("mix", "web");
  mail.set("mix", "mail");
  DemandCurve m = fit_demand_curve("disk", "mix", false, {{web, std::log(3.0)}});
  CHECK(std::exp(m.log_multiplier(web)) == Approx(3));
  CHECK(m.log_multiplier(mail) == 0);
  CHECK_THROWS(fit_demand_curve("disk", "threads", true, {{web, 0}}));
}

TEST_CASE("a recalibration applies every curve it holds, each at its own factor's level") {
  QueueNetwork net;
  net.centers = {fcfs("cpu", 1), fcfs("disk", 5)};
  Sample s = at("16");
  s.set("disks", "1");
  Recalibration r;
  r.curves.push_back(fit_demand_curve("cpu", "threads", true, {{at("1"), 0}, {at("16"), std::log(3.0)}}));
  Sample one_disk;
  one_disk.set("disks", "1");
  r.curves.push_back(fit_demand_curve("disk", "disks", true, {{one_disk, std::log(1.5)}}));
  r.from_stages = true;
  const QueueNetwork out = recalibrate(net, s, r);
  CHECK(out.find("cpu")->demand_ms.eval(s) == Approx(3));
  CHECK(out.find("disk")->demand_ms.eval(s) == Approx(7.5));
  CHECK(r.describe() ==
        "cpu demand x1.00 at threads=1 x3.00 at threads=16; disk demand x1.50 at disks=1 "
        "(from stage times)");
  // No curves: the network as it was.
  CHECK(recalibrate(net, s, Recalibration{}).find("disk")->demand_ms.eval(s) == Approx(5));
}
