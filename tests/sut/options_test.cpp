#include "sut/server_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <catch2/catch.hpp>

#include "core/error.hpp"

using namespace wb::sut;

namespace {
ServerOptions parse(std::vector<std::string> args) {
  ServerOptions o;
  RawOptions raw;
  CLI::App app;
  add_server_options(app, o, raw);
  std::reverse(args.begin(), args.end());
  app.parse(args);
  finish_options(o, raw);
  return o;
}
}  // namespace

TEST_CASE("server options: defaults and every flag", "[sut][unit]") {
  ServerOptions o = parse({"--port", "0", "--threads", "3", "--disks", "2"});
  CHECK(o.threads == 3);
  CHECK(o.disks == 2);
  CHECK(o.cpu_mode == CpuMode::kSpin);
  CHECK(o.disk.mean_ms == 10.0);
  CHECK(o.seq_factor == 0.3);
  CHECK_FALSE(o.seed.has_value());
  CHECK(o.disk_factor(1) == 1.0);

  o = parse({"--port",
             "9",
             "--threads",
             "1",
             "--disks",
             "4",
             "--cpu-ms",
             "2.5",
             "--cpu-dist",
             "lognormal",
             "--cpu-cv",
             "0.7",
             "--cpu-mode",
             "sleep",
             "--disk-ms",
             "8",
             "--disk-dist",
             "deterministic",
             "--seq-factor",
             "0.5",
             "--seed",
             "0x10",
             "--slow-disk",
             "3:2.5",
             "--slow-disk",
             "1:3",
             "--serialize-above",
             "2",
             "--create-cost-ms",
             "4",
             "--stall-every",
             "10",
             "--stall-for",
             "0.5"});
  CHECK(o.port == 9);
  CHECK(o.cpu.dist == Distribution::kLognormal);
  CHECK(o.cpu.cv == 0.7);
  CHECK(o.cpu_mode == CpuMode::kSleep);
  CHECK(o.disk.dist == Distribution::kDeterministic);
  CHECK(o.seed == 16u);
  CHECK(o.disk_factor(3) == 2.5);
  CHECK(o.disk_factor(1) == 3.0);
  CHECK(o.disk_factor(0) == 1.0);
  CHECK(o.serialize_above == 2);
  CHECK(o.create_cost_ms == 4.0);
  CHECK(o.stall_every_s == 10.0);
  CHECK(o.stall_for_s == 0.5);
}

TEST_CASE("server options: out-of-range values are InputErrors naming the flag", "[sut][unit]") {
  const auto fails_with = [](std::vector<std::string> extra, const std::string& flag) {
    std::vector<std::string> args{"--port", "0", "--threads", "2", "--disks", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    try {
      parse(args);
    } catch (const wb::InputError& e) {
      return std::string(e.what()).find(flag) != std::string::npos;
    }
    return false;
  };
  CHECK(fails_with({"--slow-disk", "2:3"}, "--slow-disk"));
  CHECK(fails_with({"--slow-disk", "0:0"}, "--slow-disk"));
  CHECK(fails_with({"--slow-disk", "a:2"}, "--slow-disk"));
  CHECK(fails_with({"--seq-factor", "0"}, "--seq-factor"));
  CHECK(fails_with({"--cache-policy", "fifo"}, "--cache-policy"));
  CHECK(fails_with({"--cache-block-kb", "0"}, "--cache-block-kb"));
  CHECK(fails_with({"--cache-mb", "2e6"}, "--cache-mb"));
  CHECK(fails_with({"--disk-cv", "0"}, "--disk-cv"));
  CHECK(fails_with({"--stall-every", "2"}, "--stall-every"));
  CHECK(fails_with({"--stall-every", "2", "--stall-for", "2"}, "--stall-for"));
  CHECK(fails_with({"--serialize-above", "-1"}, "--serialize-above"));
  CHECK(fails_with({"--seed", "12x"}, "--seed"));
  CHECK(fails_with({"--cpu-mode", "busy"}, "--cpu-mode"));
}
