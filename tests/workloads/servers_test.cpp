// wbload (the real executable) against real nginx, redis-server and memcached started on loopback
// ports by the test, plus its command-line contract. Each server is stopped when its test ends.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "child.hpp"
#include "wbload_run.hpp"
#include "workloads/result.hpp"

namespace fs = std::filesystem;
using wbtest::Child;
using wbtest::kWbload;
using wbtest::run_wbload;

namespace {

const std::string kMixes = std::string(WB_SOURCE_DIR) + "/workloads/mixes/";

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/wbload-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() noexcept {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// The checks every healthy run must pass: every request offered in the window was sent and
// answered, none failed, the achieved rate matches the offered one.
void require_clean(const wb::LoadResult& r, double rate, double duration) {
  auto offered = static_cast<std::uint64_t>(rate * duration);
  CHECK(r.sent == offered);
  CHECK(r.completed == offered);
  CHECK(r.error_total() == 0);
  CHECK(r.timeouts == 0);
  CHECK(r.achieved_rate == Approx(rate).epsilon(0.02));
  CHECK(r.histogram.count() == offered);
  CHECK(r.histogram.percentile_ns(50) > 0);
}

std::uint64_t stat_value(const std::string& text, const std::string& name) {
  auto pos = text.find(name);
  REQUIRE(pos != std::string::npos);
  return std::stoull(text.substr(pos + name.size()));
}

}  // namespace

TEST_CASE("wbload http against nginx: GET/POST over a URL list, counted by nginx", "[integration][http]") {
  TempDir dir;
  fs::create_directories(dir.path / "html");
  for (int i = 0; i < 100; ++i)
    std::ofstream(dir.path / "html" / ("f" + std::to_string(i) + ".html")) << std::string(100 + i, 'a');
  int port = wbtest::free_port();
  std::ofstream(dir.path / "nginx.conf")
      << "worker_processes 1;\ndaemon off;\nmaster_process off;\npid " << (dir.path / "nginx.pid").string()
      << ";\nerror_log " << (dir.path / "error.log").string() << ";\nevents { worker_connections 1024; }\n"
      << "http {\n  access_log " << (dir.path / "access.log").string() << ";\n"
      << "  client_body_temp_path " << (dir.path / "body").string() << ";\n"
      << "  server {\n    listen 127.0.0.1:" << port << ";\n    root " << (dir.path / "html").string()
      << ";\n"
      << "    location /post { return 200 \"ok\\n\"; }\n  }\n}\n";
  Child nginx({"/usr/sbin/nginx", "-p", dir.path.string(), "-c", (dir.path / "nginx.conf").string()});
  REQUIRE(wbtest::wait_for_port(port));
  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/";

  auto r = run_wbload({"--protocol", "http", "--target", url, "--rate", "1000", "--duration", "2", "--warmup",
                       "0.5", "--connections", "4", "--mix", kMixes + "http_static.toml"});
  require_clean(r, 1000, 2);
  nginx.stop();  // flushes the access log
  std::ifstream log(dir.path / "access.log");
  std::size_t gets = 0, posts = 0, ok = 0;
  for (std::string line; std::getline(log, line);) {
    gets += line.find("\"GET /f") != std::string::npos;
    posts += line.find("\"POST /post") != std::string::npos;
    ok += line.find("\" 200 ") != std::string::npos;
  }
  // warm-up requests reach nginx too: 2.5 s x 1000/s in all
  CHECK(gets + posts == 2500);
  CHECK(ok == 2500);
  CHECK(posts > 50);  // 5% of the mix
  CHECK(posts < 250);
}

TEST_CASE("wbload http counts 404s as http_4xx errors, not completions", "[integration][http]") {
  TempDir dir;
  fs::create_directories(dir.path / "html");
  int port = wbtest::free_port();
  std::ofstream(dir.path / "nginx.conf")
      << "worker_processes 1;\ndaemon off;\nmaster_process off;\npid " << (dir.path / "nginx.pid").string()
      << ";\nerror_log " << (dir.path / "error.log").string() << ";\nevents { worker_connections 64; }\n"
      << "http {\n  access_log off;\n  server {\n    listen 127.0.0.1:" << port << ";\n    root "
      << (dir.path / "html").string() << ";\n  }\n}\n";
  Child nginx({"/usr/sbin/nginx", "-p", dir.path.string(), "-c", (dir.path / "nginx.conf").string()});
  REQUIRE(wbtest::wait_for_port(port));
  auto r =
      run_wbload({"--protocol", "http", "--target", "http://127.0.0.1:" + std::to_string(port) + "/missing",
                  "--rate", "200", "--duration", "1", "--connections", "2"});
  CHECK(r.completed == 0);
  CHECK(r.errors["http_4xx"] == 200);
  CHECK(r.error_total() == 200);
}

// Regression: a keep-alive connection the server closes while it is idle (nginx's
// keepalive_timeout) used to stay in the pool until the next request was sent on it and failed
// as "closed". wbload now sees the close while the connection is idle and opens a new one.
TEST_CASE("wbload http: connections nginx closes while idle are replaced, not counted as errors",
          "[integration][http]") {
  TempDir dir;
  fs::create_directories(dir.path / "html");
  std::ofstream(dir.path / "html" / "index.html") << "hello\n";
  int port = wbtest::free_port();
  std::ofstream(dir.path / "nginx.conf")
      << "worker_processes 1;\ndaemon off;\nmaster_process off;\npid " << (dir.path / "nginx.pid").string()
      << ";\nerror_log " << (dir.path / "error.log").string() << ";\nevents { worker_connections 64; }\n"
      << "http {\n  access_log off;\n  keepalive_timeout 50ms;\n  server {\n    listen 127.0.0.1:" << port
      << ";\n    root " << (dir.path / "html").string() << ";\n  }\n}\n";
  Child nginx({"/usr/sbin/nginx", "-p", dir.path.string(), "-c", (dir.path / "nginx.conf").string()});
  REQUIRE(wbtest::wait_for_port(port));
  // 4 requests/s: every connection idles 250 ms between requests, five times nginx's timeout
  auto r = run_wbload({"--protocol", "http", "--target", "http://127.0.0.1:" + std::to_string(port) + "/",
                       "--rate", "4", "--duration", "3", "--connections", "2"});
  require_clean(r, 4, 3);
}

TEST_CASE("wbload redis against redis-server: GET/SET mix reaches the server", "[integration][redis]") {
  TempDir dir;
  int port = wbtest::free_port();
  Child redis({"/usr/bin/redis-server", "--port", std::to_string(port), "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", "--daemonize", "no", "--dir", dir.path.string()});
  REQUIRE(wbtest::wait_for_port(port));
  auto r = run_wbload({"--protocol", "redis", "--target", "127.0.0.1:" + std::to_string(port), "--rate",
                       "2000", "--duration", "2", "--connections", "4", "--threads", "2", "--mix",
                       kMixes + "redis_cache.toml"});
  require_clean(r, 2000, 2);
  std::string info = wbtest::tcp_exchange(port, "INFO commandstats\r\n", "cmdstat_get");
  info += wbtest::tcp_exchange(port, "INFO commandstats\r\n", "cmdstat_set");
  auto gets = stat_value(info, "cmdstat_get:calls=");
  auto sets = stat_value(info, "cmdstat_set:calls=");
  CHECK(gets + sets == 4000);
  CHECK(sets > 300);  // 10% of 4000, with sampling noise
  CHECK(sets < 500);
}

TEST_CASE("wbload memcached against memcached: get/set mix reaches the server", "[integration][memcached]") {
  int port = wbtest::free_port();
  Child mc({"/usr/bin/memcached", "-p", std::to_string(port), "-l", "127.0.0.1", "-U", "0", "-u", "root",
            "-m", "64"});
  REQUIRE(wbtest::wait_for_port(port));
  auto r = run_wbload({"--protocol", "memcached", "--target", "127.0.0.1:" + std::to_string(port), "--rate",
                       "2000", "--duration", "2", "--connections", "4", "--arrivals", "poisson", "--mix",
                       kMixes + "memcached_cache.toml"});
  // Poisson arrivals: the count in the window is random, but everything offered is answered.
  CHECK(r.sent == r.completed);
  CHECK(r.error_total() == 0);
  CHECK(r.timeouts == 0);
  CHECK(r.completed == Approx(4000).margin(4 * 63));  // ±4 sd of Poisson(4000)
  std::string stats = wbtest::tcp_exchange(port, "stats\r\n", "END\r\n");
  auto gets = stat_value(stats, "STAT cmd_get ");
  auto sets = stat_value(stats, "STAT cmd_set ");
  CHECK(gets + sets == r.sent);
  CHECK(sets > r.sent / 20);
  CHECK(sets < r.sent / 5);
}

TEST_CASE("wbload counts refused connections as connect errors", "[integration]") {
  int port = wbtest::free_port();  // nobody listens
  auto r = run_wbload({"--protocol", "redis", "--target", "127.0.0.1:" + std::to_string(port), "--rate",
                       "100", "--duration", "1", "--connections", "2", "--timeout", "1"});
  CHECK(r.completed == 0);
  CHECK(r.errors["connect"] + r.timeouts == 100);
  CHECK(r.errors["connect"] > 50);
}

TEST_CASE("wbload command line: --version, --help, and one clear line with exit 2 for bad input", "[cli]") {
  auto v = wbtest::run_command({kWbload, "--version"});
  CHECK(v.status == 0);
  CHECK(v.out.rfind("wbload ", 0) == 0);
  CHECK(v.out.find("wb-loglin-v1") != std::string::npos);
  auto h = wbtest::run_command({kWbload, "--help"});
  CHECK(h.status == 0);
  CHECK(h.out.find("--max-connections") != std::string::npos);
  CHECK(h.out.find("coordinated omission") != std::string::npos);

  const std::vector<std::vector<std::string>> bad = {
      {"--protocol", "rpc", "--target", "127.0.0.1:1", "--duration", "1"},                  // no --rate
      {"--protocol", "smtp", "--target", "127.0.0.1:1", "--rate", "1", "--duration", "1"},  // protocol
      {"--protocol", "rpc", "--target", "127.0.0.1", "--rate", "1", "--duration", "1"},     // no port
      {"--protocol", "rpc", "--target", "127.0.0.1:1", "--rate", "-5", "--duration", "1"},
      {"--protocol", "rpc", "--target", "127.0.0.1:1", "--rate", "5", "--duration", "1", "--arrivals",
       "burst"},
      {"--protocol", "rpc", "--target", "127.0.0.1:1", "--rate", "5", "--duration", "1", "--mix",
       kMixes + "redis_cache.toml"},
      {"--protocol", "rpc", "--target", "127.0.0.1:1", "--rate", "5", "--duration", "1", "--connections", "4",
       "--max-connections", "2"},
      {"--protocol", "rpc", "--target", "127.0.0.1:1", "--rate", "5", "--duration", "1", "--bogus"},
      {"--protocol", "rpc", "--target", "127.0.0.1:1", "--rate", "5", "--duration", "1", "--intervals",
       "0.001"},
      {"--protocol", "http", "--target", "https://127.0.0.1/", "--rate", "5", "--duration", "1"},
  };
  for (const auto& args : bad) {
    std::vector<std::string> a = {kWbload};
    a.insert(a.end(), args.begin(), args.end());
    auto r = wbtest::run_command(a);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("wbload: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("wbload refuses NaN, infinite and overflowing numbers: exit 2 within a second, one line", "[cli]") {
  const std::vector<std::string> base = {kWbload, "--protocol", "rpc", "--target", "127.0.0.1:1"};
  const std::vector<std::vector<std::string>> bad = {
      {"--rate", "nan", "--duration", "1"},
      {"--rate", "NaN", "--duration", "1"},
      {"--rate", "inf", "--duration", "1"},
      {"--rate", "1e999", "--duration", "1"},
      {"--rate", "5", "--duration", "nan"},
      {"--rate", "5", "--duration", "infinity"},
      {"--rate", "5", "--duration", "1", "--warmup", "nan"},
      {"--rate", "5", "--duration", "1", "--warmup", "inf"},
      {"--rate", "5", "--duration", "1", "--timeout", "nan"},
      {"--rate", "5", "--duration", "1", "--timeout", "-inf"},
      {"--rate", "5", "--duration", "1", "--late-ms", "nan"},
      {"--rate", "5", "--duration", "1", "--intervals", "nan"},
      {"--rate", "5", "--duration", "1", "--connections", "4294967297"},
      {"--rate", "5", "--duration", "1", "--threads", "2.5"},
      {"--rate", "5", "--duration", "1", "--seed", "-1"},
      {"--rate", "5", "--duration", "1", "--seed", "18446744073709551616"},
  };
  for (const auto& args : bad) {
    std::vector<std::string> a = base;
    a.insert(a.end(), args.begin(), args.end());
    const auto t0 = std::chrono::steady_clock::now();
    auto r = wbtest::run_command(a, 10);
    const auto took = std::chrono::steady_clock::now() - t0;
    INFO(args[0] << " " << args[1] << " ... " << args.back() << "\nstderr: " << r.err);
    CHECK(r.status == 2);
    CHECK(took < std::chrono::seconds(1));
    CHECK(r.out.empty());
    CHECK(r.err.rfind("wbload: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}
