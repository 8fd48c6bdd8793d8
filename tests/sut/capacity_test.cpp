#include "sut/capacity.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using wb::sut::Bottleneck;
using wb::sut::capacity_bound;
using wb::sut::CapacityInput;

TEST_CASE("capacity_bound: thread-bound when threads are few", "[sut][capacity][unit]") {
  CapacityInput in;
  in.threads = 4;
  in.disks = 8;
  in.cpu_ms = 4;
  in.disk_ms = 16;
  const auto b = capacity_bound(in);
  CHECK(b.thread_bound == Approx(4 / 0.020));
  CHECK(b.disk_bound == Approx(8 / 0.016));
  CHECK(std::isinf(b.core_bound));
  CHECK(b.lambda_max == Approx(200.0));
  CHECK(b.bottleneck == Bottleneck::kThreads);
}

TEST_CASE("capacity_bound: disks bind once threads suffice — p scales the disk demand",
          "[sut][capacity][unit]") {
  CapacityInput in;
  in.threads = 8;
  in.disks = 1;
  in.cpu_ms = 4;
  in.disk_ms = 10;
  in.disk_fraction = 0.5;
  const auto b = capacity_bound(in);
  CHECK(b.thread_bound == Approx(8 / 0.009));
  CHECK(b.disk_bound == Approx(1 / 0.005));
  CHECK(b.lambda_max == Approx(200.0));
  CHECK(b.bottleneck == Bottleneck::kDisks);
  // [003 Fig. 2]: adding disks raises the peak only until the threads bind.
  in.disks = 4;
  CHECK(capacity_bound(in).lambda_max == Approx(800.0));
  in.disks = 16;
  CHECK(capacity_bound(in).lambda_max == Approx(8 / 0.009));
  CHECK(capacity_bound(in).bottleneck == Bottleneck::kThreads);
}

TEST_CASE("capacity_bound: spin mode adds the cores term, sleep mode does not", "[sut][capacity][unit]") {
  CapacityInput in;
  in.threads = 64;
  in.disks = 64;
  in.cpu_ms = 2;
  in.disk_ms = 1;
  in.cores = 2;
  in.spin = true;
  auto b = capacity_bound(in);
  CHECK(b.core_bound == Approx(1000.0));
  CHECK(b.lambda_max == Approx(1000.0));
  CHECK(b.bottleneck == Bottleneck::kCores);
  in.spin = false;
  b = capacity_bound(in);
  CHECK(b.lambda_max == Approx(64 / 0.003));
  CHECK(b.bottleneck == Bottleneck::kThreads);
}

TEST_CASE("capacity_bound: metadata only never touches the disks — no demand at all is unbounded",
          "[sut][capacity][unit]") {
  CapacityInput in;
  in.threads = 2;
  in.disks = 1;
  in.cpu_ms = 5;
  in.disk_ms = 10;
  in.disk_fraction = 0;
  auto b = capacity_bound(in);
  CHECK(std::isinf(b.disk_bound));
  CHECK(b.lambda_max == Approx(400.0));
  in.cpu_ms = 0;
  b = capacity_bound(in);
  CHECK(std::isinf(b.lambda_max));
  CHECK(b.bottleneck == Bottleneck::kNone);
}
