// Randomized robustness of the parsers wbload and the controller feed with foreign bytes: the
// result/histogram JSON reader must accept or throw wb::InputError (never crash, never another
// exception type), and the codecs must classify any byte string without reading past it.
// Coverage-guided fuzzing of these and the other parsers, with stronger invariants: fuzz/.
#include <random>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "workloads/codec.hpp"
#include "workloads/result.hpp"

namespace {

std::string mutate(std::string s, std::mt19937_64& rng) {
  int edits = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    std::size_t at = std::uniform_int_distribution<std::size_t>(0, s.size() - 1)(rng);
    switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
      case 0: s[at] = static_cast<char>(rng()); break;
      case 1: s.erase(at, std::uniform_int_distribution<std::size_t>(1, 8)(rng)); break;
      case 2: s.insert(at, 1, "0123456789{}[]\":,-e."[rng() % 20]); break;
      default: s.resize(at); break;
    }
  }
  return s;
}

}  // namespace

TEST_CASE("mutated result JSON is parsed or rejected with InputError", "[fuzz]") {
  wb::LoadResult r;
  r.offered_rate = 100;
  r.achieved_rate = 99;
  r.duration_s = 1;
  r.sent = r.completed = 50;
  for (std::uint64_t v = 1000; r.histogram.count() < 50; v = v * 13 / 10) r.histogram.record(v);
  r.intervals.resize(1);
  const std::string good = wb::to_json(r).dump();
  std::mt19937_64 rng(11);
  int accepted = 0, rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = mutate(good, rng);
    try {
      auto back = wb::parse_result(text);
      ++accepted;
      REQUIRE(back.histogram.count() == back.completed);  // what is accepted is consistent
    } catch (const wb::InputError&) {
      ++rejected;
    }
  }
  REQUIRE(rejected > 0);
  REQUIRE(accepted > 0);  // e.g. edits inside numbers that keep the object valid
}

TEST_CASE("codecs classify random and truncated bytes without overrunning", "[fuzz]") {
  wb::Mix mix = wb::default_mix(wb::Protocol::kHttp);
  auto target = wb::parse_target("http://127.0.0.1:1/", wb::Protocol::kHttp);
  std::vector<std::unique_ptr<wb::Codec>> codecs;
  codecs.push_back(wb::make_rpc_codec());
  codecs.push_back(wb::make_http_codec(mix, target));
  codecs.push_back(wb::make_redis_codec());
  codecs.push_back(wb::make_memcached_codec());
  const std::vector<std::string> seeds = {
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
      "$5\r\nhello\r\n",
      "+OK\r\n",
      "VALUE k 0 5\r\nhello\r\nEND\r\n",
      std::string("\0\0\0\x0c\0\0\0\0\0\0\0\x01\0\0\0\0", 16)};
  std::mt19937_64 rng(5);
  for (int i = 0; i < 50000; ++i) {
    std::string in = mutate(seeds[static_cast<std::size_t>(i) % seeds.size()], rng);
    for (const auto& c : codecs) {
      // a copy with no slack, so reading past the end is caught by ASan in sanitizer builds
      std::unique_ptr<char[]> exact(new char[in.size() + 1]);
      std::copy(in.begin(), in.end(), exact.get());
      wb::Parsed p = c->parse(std::string_view(exact.get(), in.size()), 1);
      if (p.done) REQUIRE(p.length <= in.size());
    }
  }
}
