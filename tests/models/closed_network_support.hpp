#pragma once
// Builders of small queue networks and the comparison of two closed solutions, shared by the
// closed-network tests (closed_network_test.cpp, closed_network_limits_test.cpp).
#include <catch2/catch.hpp>

#include <string>

#include "core/queue_network.hpp"
#include "core/sample.hpp"
#include "models/closed_model.hpp"

namespace wb::test {

inline wb::ServiceCenter center(const std::string& name, const std::string& servers, double demand_ms,
                                wb::Discipline d = wb::Discipline::kFcfs) {
  wb::ServiceCenter c;
  c.name = name;
  c.servers = wb::Expr::parse(servers);
  c.demand_ms = wb::Expr::constant(demand_ms);
  c.discipline = d;
  return c;
}

inline wb::ServiceCenter pool(const std::string& name, const std::string& tokens) {
  wb::ServiceCenter c;
  c.name = name;
  c.pool = true;
  c.servers = wb::Expr::parse(tokens);
  return c;
}

inline wb::ServiceCenter within(wb::ServiceCenter c, const std::string& pool_name) {
  c.within = pool_name;
  return c;
}

inline wb::Sample sample(const std::string& key, int value) {
  wb::Sample s;
  s.set(key, std::to_string(value));
  return s;
}

inline void check_same(const wb::ClosedResult& got, const wb::ClosedResult& want, double eps) {
  CHECK(got.throughput == Approx(want.throughput).epsilon(eps));
  CHECK(got.response == Approx(want.response).epsilon(eps));
  REQUIRE(got.centers.size() == want.centers.size());
  for (std::size_t k = 0; k < got.centers.size(); ++k) {
    INFO("center " << got.centers[k].name);
    CHECK(got.centers[k].name == want.centers[k].name);
    CHECK(got.centers[k].queue_length == Approx(want.centers[k].queue_length).epsilon(eps).margin(1e-12));
    CHECK(got.centers[k].residence == Approx(want.centers[k].residence).epsilon(eps).margin(1e-12));
    CHECK(got.centers[k].utilization == Approx(want.centers[k].utilization).epsilon(eps).margin(1e-12));
  }
}

}  // namespace wb::test
