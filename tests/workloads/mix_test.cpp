// Mix files: the shipped mixes load, sampling follows weights and popularity, bad files are
// rejected with FILE:LINE:KEY.
#include <filesystem>
#include <map>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "workloads/codec.hpp"
#include "workloads/mix.hpp"

namespace {

std::string mix_path(const std::string& name) {
  return std::string(WB_SOURCE_DIR) + "/workloads/mixes/" + name;
}

std::string error_of(const std::string& text, wb::Protocol p) {
  try {
    wb::parse_mix(text, "m.toml", p);
  } catch (const wb::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("every shipped mix loads for its protocol", "[mix]") {
  std::map<std::string, wb::Protocol> files{
      {"rpc_specsfs97.toml", wb::Protocol::kRpc},   {"rpc_web.toml", wb::Protocol::kRpc},
      {"rpc_db_tp.toml", wb::Protocol::kRpc},       {"rpc_mail.toml", wb::Protocol::kRpc},
      {"rpc_storage.toml", wb::Protocol::kRpc},     {"http_static.toml", wb::Protocol::kHttp},
      {"redis_cache.toml", wb::Protocol::kRedis},   {"memcached_cache.toml", wb::Protocol::kMemcached},
      {"file_specsfs97.toml", wb::Protocol::kFile}, {"file_web.toml", wb::Protocol::kFile},
      {"file_db_tp.toml", wb::Protocol::kFile},     {"file_mail.toml", wb::Protocol::kFile}};
  std::size_t on_disk = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(WB_SOURCE_DIR) + "/workloads/mixes"))
    on_disk += e.path().extension() == ".toml";
  REQUIRE(on_disk == files.size());  // a new mix must be added here too
  for (const auto& [file, proto] : files) {
    INFO(file);
    auto m = wb::load_mix(mix_path(file), proto);
    REQUIRE(!m.ops.empty());
    REQUIRE_THROWS_AS(
        wb::load_mix(mix_path(file), proto == wb::Protocol::kRpc ? wb::Protocol::kHttp : wb::Protocol::kRpc),
        wb::InputError);
  }
}

TEST_CASE("the rpc web mix has the Table 3 shape: 10.5 KB mean sequential reads", "[mix]") {
  auto m = wb::load_mix(mix_path("rpc_web.toml"), wb::Protocol::kRpc);
  std::mt19937_64 rng(5);
  double bytes = 0;
  std::size_t reads = 0, seq = 0;
  const int n = 200'000;
  for (int i = 0; i < n; ++i) {
    auto o = m.next(rng);
    if (o.kind == wb::OpKind::kRead) {
      ++reads;
      bytes += o.size;
      seq += o.sequential;
    }
  }
  REQUIRE(static_cast<double>(reads) / n == Approx(0.9).margin(0.005));
  REQUIRE(seq == reads);
  REQUIRE(bytes / static_cast<double>(reads) == Approx(10752).epsilon(0.03));
}

TEST_CASE("the file mixes keep every operation inside their files", "[mix]") {
  for (const char* file : {"file_specsfs97.toml", "file_web.toml", "file_db_tp.toml", "file_mail.toml"}) {
    INFO(file);
    auto m = wb::load_mix(mix_path(file), wb::Protocol::kFile);
    REQUIRE(m.keys.file_bytes > 0);
    std::mt19937_64 rng(6);
    for (int i = 0; i < 20000; ++i) {
      auto o = m.next(rng);
      REQUIRE(o.key < m.keys.count);
      REQUIRE(o.offset + o.size <= m.keys.file_bytes);
      REQUIRE(o.offset % m.keys.align == 0);
      if (o.sequential) REQUIRE(o.offset == 0);
    }
  }
}

TEST_CASE("zipf popularity gives rank k a share proportional to 1/k^s", "[mix]") {
  auto m = wb::parse_mix(
      "protocol = \"redis\"\n[keys]\ncount = 1000\npopularity = \"zipf\"\nexponent = 1.0\n[[op]]\nkind = "
      "\"get\"\n",
      "z.toml", wb::Protocol::kRedis);
  std::mt19937_64 rng(9);
  std::vector<double> hits(1000, 0);
  const int n = 400'000;
  for (int i = 0; i < n; ++i) hits[m.next(rng).key] += 1;
  double h = 0;
  for (int k = 1; k <= 1000; ++k) h += 1.0 / k;
  REQUIRE(hits[0] / n == Approx(1.0 / h).epsilon(0.02));
  REQUIRE(hits[1] / n == Approx(0.5 / h).epsilon(0.03));
  REQUIRE(hits[9] / n == Approx(0.1 / h).epsilon(0.08));
}

TEST_CASE("http paths come from the template or the URL list", "[mix]") {
  auto m = wb::parse_mix(
      "protocol = \"http\"\n[[op]]\nkind = \"get\"\npaths = [\"/a\", \"/b\"]\n[[op]]\nkind = \"post\"\npath "
      "= \"/p/{key}\"\n",
      "h.toml", wb::Protocol::kHttp);
  std::mt19937_64 rng(1);
  std::map<std::string, int> seen;
  for (int i = 0; i < 1000; ++i) {
    auto o = m.next(rng);
    auto p = m.http_path(o, "/");
    seen[o.kind == wb::OpKind::kPost ? p.substr(0, 3) : p]++;
  }
  REQUIRE(seen.size() == 3);
  REQUIRE(seen.count("/a"));
  REQUIRE(seen.count("/b"));
  REQUIRE(seen.count("/p/"));
}

TEST_CASE("bad mix files name file, line and key", "[mix]") {
  using wb::Protocol;
  REQUIRE_THAT(error_of("protocol = \"rpc\"\n[[op]]\nkind = \"get\"\n", Protocol::kRpc),
               Catch::Contains("m.toml:3:op[0].kind"));
  REQUIRE_THAT(error_of("protocol = \"rpc\"\n[[op]]\nkind = \"read\"\nweigth = 2\n", Protocol::kRpc),
               Catch::Contains("m.toml:4:op[0].weigth: unknown key"));
  REQUIRE_THAT(
      error_of("protocol = \"rpc\"\n[[op]]\nkind = \"read\"\nsize = { dist = \"pareto\" }\n", Protocol::kRpc),
      Catch::Contains("op[0].size.dist"));
  REQUIRE_THAT(error_of("protocol = \"rpc\"\n[[op]]\nkind = \"read\"\nweight = -1\n", Protocol::kRpc),
               Catch::Contains("m.toml:4:op[0].weight"));
  REQUIRE_THAT(error_of("protocol = \"rpc\"\n", Protocol::kRpc), Catch::Contains("op"));
  REQUIRE_THAT(error_of("protocol = \"redis\"\n[[op]]\nkind = \"get\"\n", Protocol::kMemcached),
               Catch::Contains("m.toml:1:protocol"));
  REQUIRE_THAT(error_of("protocol = \"rpc\"\n[[op]\n", Protocol::kRpc), Catch::Contains("m.toml:2"));
}

TEST_CASE("offsets are aligned, inside the file, and 0 for sequential ops", "[mix]") {
  auto m = wb::parse_mix(
      "protocol = \"rpc\"\n[keys]\ncount = 10\nfile_bytes = 100000\nalign = 512\n[[op]]\nkind = "
      "\"read\"\nsize = { dist = \"uniform\", min = 1, max = 200000 }\n[[op]]\nkind = \"write\"\nsize = "
      "4096\nsequential = 1.0\n[[op]]\nkind = \"metadata\"\n",
      "o.toml", wb::Protocol::kRpc);
  REQUIRE(m.keys.file_bytes == 100000);
  REQUIRE(m.keys.align == 512);
  std::mt19937_64 rng(4);
  std::uint64_t random_reads = 0, clamped = 0, last_slot = 0;
  for (int i = 0; i < 20000; ++i) {
    auto o = m.next(rng);
    REQUIRE(o.key < 10);
    REQUIRE(o.size <= 100000);
    REQUIRE(o.offset + o.size <= 100000);
    REQUIRE(o.offset % 512 == 0);
    if (o.kind == wb::OpKind::kRead) {
      ++random_reads;
      clamped += o.size == 100000;
      last_slot += o.offset == (100000 - o.size) / 512 * 512 && o.offset > 0;
    } else {
      REQUIRE(o.offset == 0);  // sequential writes and metadata start at 0
    }
  }
  REQUIRE(random_reads > 6000);
  REQUIRE(clamped > 0);    // sizes above file_bytes are clamped to it
  REQUIRE(last_slot > 0);  // the highest aligned offset that fits is drawn too

  // No file_bytes: offsets stay 0 and sizes are not clamped.
  auto plain = wb::load_mix(mix_path("rpc_specsfs97.toml"), wb::Protocol::kRpc);
  for (int i = 0; i < 1000; ++i) REQUIRE(plain.next(rng).offset == 0);
}

TEST_CASE("bad file_bytes and align name file, line and key", "[mix]") {
  using wb::Protocol;
  const std::string head = "protocol = \"rpc\"\n[keys]\n";
  const std::string op = "[[op]]\nkind = \"read\"\n";
  REQUIRE_THAT(error_of(head + "align = 0\n" + op, Protocol::kRpc), Catch::Contains("m.toml:3:keys.align"));
  REQUIRE_THAT(error_of(head + "file_bytes = -1\n" + op, Protocol::kRpc),
               Catch::Contains("m.toml:3:keys.file_bytes"));
  REQUIRE_THAT(error_of(head + "file_bytes = 1.5\n" + op, Protocol::kRpc),
               Catch::Contains("m.toml:3:keys.file_bytes: expected a whole number"));
  REQUIRE_THAT(error_of(head + "align = \"4k\"\n" + op, Protocol::kRpc),
               Catch::Contains("m.toml:3:keys.align: expected a whole number"));
  REQUIRE_THAT(error_of(head + "file_byte = 4096\n" + op, Protocol::kRpc),
               Catch::Contains("m.toml:3:keys.file_byte: unknown key"));
  REQUIRE(error_of(head + "file_bytes = 0\nalign = 1\n" + op, Protocol::kRpc) == "(accepted)");
}

TEST_CASE("targets parse and bad ones are rejected", "[mix]") {
  auto t = wb::parse_target("http://127.0.0.1:8080/x/y.html", wb::Protocol::kHttp);
  REQUIRE(t.host == "127.0.0.1");
  REQUIRE(t.port == 8080);
  REQUIRE(t.path == "/x/y.html");
  REQUIRE(t.host_header == "127.0.0.1:8080");
  auto v6 = wb::parse_target("[::1]:7000", wb::Protocol::kRpc);
  REQUIRE(v6.host == "::1");
  REQUIRE(v6.port == 7000);
  REQUIRE_THROWS_AS(wb::parse_target("127.0.0.1", wb::Protocol::kRedis), wb::InputError);
  REQUIRE_THROWS_AS(wb::parse_target("127.0.0.1:99999", wb::Protocol::kRpc), wb::InputError);
  REQUIRE_THROWS_AS(wb::parse_target("https://x/", wb::Protocol::kHttp), wb::InputError);
}
