#include "harness/sim/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>

#include "core/error.hpp"
#include "harness/sim/random.hpp"

namespace wb::sim {

namespace {

constexpr int kNone = -1;

struct Station {
  bool pool = false;
  int servers = 1;
  int busy = 0;
  Discipline discipline = Discipline::kFcfs;
  double visits = 1;
  int within = kNone;
  ServiceTime service{ServiceDistribution::kDeterministic, 1, 1};
  std::deque<int> waiting;  // FCFS queue (and pool waiters)
  // Processor sharing: jobs in service with remaining work (seconds at full speed).
  std::vector<std::pair<int, double>> ps_jobs;
  double ps_last = 0;
  std::uint64_t ps_generation = 0;
  // Busy-time accounting over the measured window.
  double busy_area = 0;
  double busy_since = 0;
};

struct Request {
  double arrival = 0;
  int center = kNone;  // station being visited (or waited for)
  int remaining = 0;   // visits left at `center`, including the current one
  int pool = kNone;    // pool token held
  bool measured = false;
};

struct Event {
  double time;
  std::uint64_t seq;
  enum Kind { kArrival, kDone, kPsDone } kind;
  int request;
  int station;
  std::uint64_t generation;
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

class Simulation {
 public:
  Simulation(const QueueNetwork& net, const Sample& sample, const RunSpec& spec)
      : spec_(spec), rng_(mix(spec.seed, 0x51a7)) {
    for (const auto& c : net.centers) {
      Station s;
      s.pool = c.pool;
      double servers = c.servers.eval(sample);
      if (!(servers >= 1)) {
        throw InputError(fmt::format("center '{}': servers = '{}' is {} for sample {}; it must be at least 1",
                                     c.name, c.servers.text(), servers, sample.key()));
      }
      s.servers = static_cast<int>(std::lround(servers));
      if (!c.pool) {
        double demand = c.demand_ms.eval(sample);
        if (!(demand > 0)) {
          throw InputError(
              fmt::format("center '{}': service_ms = '{}' is {} for sample {}; it must be positive", c.name,
                          c.demand_ms.text(), demand, sample.key()));
        }
        s.service = ServiceTime(c.distribution, demand / 1000.0, c.cv);
        s.visits = c.visits;
        s.discipline = c.discipline;
        if (!c.within.empty()) {
          for (std::size_t i = 0; i < net.centers.size(); ++i) {
            if (net.centers[i].name == c.within) s.within = static_cast<int>(i);
          }
        }
      }
      stations_.push_back(std::move(s));
    }
  }

  RunOutcome run() {
    window_start_ = spec_.warmup_s;
    window_end_ = spec_.warmup_s + spec_.runlength_s;
    if (spec_.rate > 0) push(next_interarrival(), Event::kArrival, kNone, kNone);
    double horizon = window_end_ + spec_.timeout_s;
    while (!events_.empty()) {
      Event e = events_.top();
      if (e.time > horizon) break;
      events_.pop();
      now_ = e.time;
      switch (e.kind) {
        case Event::kArrival: on_arrival(); break;
        case Event::kDone: finish_visit(e.request, e.station); break;
        case Event::kPsDone:
          if (e.generation == stations_[static_cast<std::size_t>(e.station)].ps_generation)
            on_ps_done(e.station);
          break;
      }
      if (out_.sent > 0 && outstanding_measured_ == 0 && now_ >= window_end_) break;
    }
    out_.timeouts = out_.sent - out_.completed;
    for (auto& s : stations_) {
      double until = std::min(now_, window_end_);
      account(s, until);
      out_.utilization.push_back(s.busy_area / (spec_.runlength_s * s.servers));
    }
    return std::move(out_);
  }

 private:
  double next_interarrival() { return -std::log1p(-ServiceTime::uniform(rng_)) / spec_.rate; }

  void push(double t, Event::Kind k, int request, int station, std::uint64_t generation = 0) {
    events_.push(Event{t, seq_++, k, request, station, generation});
  }

  // Busy-time integral restricted to the measured window.
  void account(Station& s, double t) {
    double from = std::max(s.busy_since, window_start_), to = std::min(t, window_end_);
    double load = s.discipline == Discipline::kPs && !s.pool
                      ? std::min<double>(static_cast<double>(s.ps_jobs.size()), s.servers)
                      : s.busy;
    if (to > from) s.busy_area += load * (to - from);
    s.busy_since = t;
  }

  int draw_visits(const Station& s) {
    double whole = std::floor(s.visits);
    int n = static_cast<int>(whole);
    if (ServiceTime::uniform(rng_) < s.visits - whole) ++n;
    return n;
  }

  void on_arrival() {
    if (now_ < window_end_)
      push(now_ + next_interarrival(), Event::kArrival, kNone, kNone);
    else
      return;
    Request r;
    r.arrival = now_;
    r.measured = now_ >= window_start_;
    if (r.measured) {
      ++out_.sent;
      ++outstanding_measured_;
    }
    requests_.push_back(r);
    advance(static_cast<int>(requests_.size() - 1), 0);
  }

  // Moves request `id` to its next visit, starting the search at station `from`.
  void advance(int id, int from) {
    Request& r = requests_[static_cast<std::size_t>(id)];
    for (int i = from; i < static_cast<int>(stations_.size()); ++i) {
      Station& s = stations_[static_cast<std::size_t>(i)];
      if (s.pool) continue;
      int n = draw_visits(s);
      if (n == 0) continue;
      r.center = i;
      r.remaining = n;
      enter(id);
      return;
    }
    depart(id);
  }

  // Request `id` is about to visit r.center: settle its pool token first.
  void enter(int id) {
    Request& r = requests_[static_cast<std::size_t>(id)];
    int want = stations_[static_cast<std::size_t>(r.center)].within;
    if (r.pool != want) {
      if (r.pool != kNone) release_pool(r.pool);
      r.pool = kNone;
      if (want != kNone) {
        Station& p = stations_[static_cast<std::size_t>(want)];
        if (p.busy < p.servers) {
          account(p, now_);
          ++p.busy;
          r.pool = want;
        } else {
          p.waiting.push_back(id);
          return;  // resumes in release_pool
        }
      }
    }
    visit(id);
  }

  void release_pool(int pool) {
    Station& p = stations_[static_cast<std::size_t>(pool)];
    account(p, now_);
    --p.busy;
    if (!p.waiting.empty()) {
      int next = p.waiting.front();
      p.waiting.pop_front();
      ++p.busy;
      requests_[static_cast<std::size_t>(next)].pool = pool;
      visit(next);
    }
  }

  void visit(int id) {
    int c = requests_[static_cast<std::size_t>(id)].center;
    Station& s = stations_[static_cast<std::size_t>(c)];
    switch (s.discipline) {
      case Discipline::kDelay: push(now_ + s.service.draw(rng_), Event::kDone, id, c); return;
      case Discipline::kPs: ps_add(c, id); return;
      case Discipline::kFcfs:
        if (s.busy < s.servers) {
          account(s, now_);
          ++s.busy;
          push(now_ + s.service.draw(rng_), Event::kDone, id, c);
        } else {
          s.waiting.push_back(id);
        }
        return;
    }
  }

  void finish_visit(int id, int c) {
    Station& s = stations_[static_cast<std::size_t>(c)];
    if (s.discipline == Discipline::kFcfs) {
      if (!s.waiting.empty()) {
        int next = s.waiting.front();
        s.waiting.pop_front();
        push(now_ + s.service.draw(rng_), Event::kDone, next, c);
      } else {
        account(s, now_);
        --s.busy;
      }
    }
    Request& r = requests_[static_cast<std::size_t>(id)];
    if (--r.remaining > 0) {
      visit(id);
    } else {
      advance(id, c + 1);
    }
  }

  // Processor sharing with `servers` processors: each of n jobs progresses at min(1, servers/n).
  void ps_progress(Station& s) {
    if (!s.ps_jobs.empty()) {
      double speed = std::min(1.0, s.servers / static_cast<double>(s.ps_jobs.size()));
      for (auto& j : s.ps_jobs) j.second -= (now_ - s.ps_last) * speed;
    }
    s.ps_last = now_;
  }
  void ps_schedule(int c) {
    Station& s = stations_[static_cast<std::size_t>(c)];
    ++s.ps_generation;
    if (s.ps_jobs.empty()) return;
    double least = s.ps_jobs.front().second;
    for (const auto& j : s.ps_jobs) least = std::min(least, j.second);
    double speed = std::min(1.0, s.servers / static_cast<double>(s.ps_jobs.size()));
    push(now_ + std::max(0.0, least) / speed, Event::kPsDone, kNone, c, s.ps_generation);
  }
  void ps_add(int c, int id) {
    Station& s = stations_[static_cast<std::size_t>(c)];
    ps_progress(s);
    account(s, now_);
    s.ps_jobs.emplace_back(id, s.service.draw(rng_));
    ps_schedule(c);
  }
  void on_ps_done(int c) {
    Station& s = stations_[static_cast<std::size_t>(c)];
    ps_progress(s);
    account(s, now_);
    std::size_t k = 0;
    for (std::size_t i = 1; i < s.ps_jobs.size(); ++i) {
      if (s.ps_jobs[i].second < s.ps_jobs[k].second) k = i;
    }
    int id = s.ps_jobs[k].first;
    s.ps_jobs.erase(s.ps_jobs.begin() + static_cast<std::ptrdiff_t>(k));
    ps_schedule(c);
    finish_visit(id, c);
  }

  void depart(int id) {
    Request& r = requests_[static_cast<std::size_t>(id)];
    if (r.pool != kNone) {
      int p = r.pool;
      r.pool = kNone;
      release_pool(p);
    }
    if (!r.measured) return;
    --outstanding_measured_;
    double response = now_ - r.arrival;
    if (response <= spec_.timeout_s) {
      ++out_.completed;
      out_.response_ms.push_back(response * 1000.0);
    }
  }

  RunSpec spec_;
  std::mt19937_64 rng_;
  std::vector<Station> stations_;
  std::vector<Request> requests_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  double now_ = 0;
  double window_start_ = 0, window_end_ = 0;
  std::uint64_t outstanding_measured_ = 0;
  RunOutcome out_;
};

}  // namespace

RunOutcome simulate(const QueueNetwork& net, const Sample& sample, const RunSpec& spec) {
  // A categorical factor enters the expressions through its workload attributes ([sim.attributes]).
  return Simulation(net, net.with_attributes(sample), spec).run();
}

double nearest_rank(std::vector<double>& xs, double q) {
  if (xs.empty()) return 0;
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(xs.size())));
  rank = std::clamp<std::size_t>(rank, 1, xs.size()) - 1;
  std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(rank), xs.end());
  return xs[rank];
}

}  // namespace wb::sim
