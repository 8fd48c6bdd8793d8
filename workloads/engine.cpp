#include "workloads/engine.hpp"

#include <algorithm>
#include <exception>
#include <optional>
#include <thread>

#include "core/asio.hpp"
#include "core/error.hpp"
#include "workloads/file_engine.hpp"
#include "workloads/worker.hpp"

namespace wb {

namespace asio = boost::asio;

namespace {

asio::ip::tcp::endpoint resolve(const Target& t) {
  asio::io_context io;
  asio::ip::tcp::resolver resolver(io);
  boost::system::error_code ec;
  auto results = resolver.resolve(t.host, std::to_string(t.port), ec);
  if (ec || results.empty()) throw Error("cannot resolve " + t.host + ": " + ec.message());
  return results.begin()->endpoint();
}

// Share i of n of a total, spread so the shares add up to the total.
int share(int total, int n, int i) { return total / n + (i < total % n ? 1 : 0); }

}  // namespace

LoadResult run_load(const LoadOptions& o) {
  if (o.protocol == Protocol::kFile) return run_file_load(o);
  asio::ip::tcp::endpoint ep = resolve(o.target);
  std::optional<TraceWriter> trace;
  if (!o.trace_path.empty()) trace.emplace(o.trace_path);
  auto codec = make_codec(o.mix, o.target);
  int threads = std::max(1, o.threads);
  int max_conns = o.max_connections > 0 ? o.max_connections : 4 * o.connections;
  max_conns = std::max(max_conns, o.connections);
  // Leave the workers time to open their initial connections before the first request is due.
  auto start = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);

  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < threads; ++i) {
    WorkerPlan plan;
    plan.index = i;
    plan.rate = o.rate / threads;
    plan.phase_s = static_cast<double>(i) / o.rate;  // constant arrivals interleave across threads
    plan.connections = std::max(1, share(o.connections, threads, i));
    plan.max_connections = std::max(plan.connections, share(max_conns, threads, i));
    plan.start = start;
    workers.push_back(std::make_unique<Worker>(o, *codec, ep, plan));
  }
  std::vector<std::exception_ptr> failures(workers.size());
  std::vector<std::thread> pool;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    pool.emplace_back([&, i] {
      try {
        workers[i]->run();
      } catch (...) {
        failures[i] = std::current_exception();
      }
    });
  }
  for (auto& t : pool) t.join();
  for (auto& f : failures)
    if (f) std::rethrow_exception(f);

  std::vector<LoadResult> parts;
  parts.reserve(workers.size());
  for (auto& w : workers) parts.push_back(w->result());
  LoadResult r = merge_results(parts);
  r.generators = 1;  // threads of one process are one generator
  r.offered_rate = o.rate;
  if (trace) {
    std::vector<std::vector<TraceRecord>> records;
    records.reserve(workers.size());
    for (auto& w : workers) records.push_back(w->take_trace());
    r.trace_ops = trace->write(std::move(records));
    r.trace_path = trace->path();
  }
  return r;
}

}  // namespace wb
