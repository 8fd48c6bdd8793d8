#include "store/schema.hpp"

#include <fmt/format.h>

#include <array>

#include "core/error.hpp"

namespace wb::store {

namespace {

// Migration N brings the schema from version N to N+1. Never edit one that has shipped; append.
constexpr std::array kMigrations = {
    // 0 -> 1: searches, their loads and trials; cached truths of simulated samples.
    R"sql(
CREATE TABLE searches (
  id           INTEGER PRIMARY KEY,
  testbed      TEXT NOT NULL,
  sample       TEXT NOT NULL,          -- canonical key "disks=2,threads=16"
  sample_json  TEXT NOT NULL,
  confidence   REAL NOT NULL,
  accuracy     REAL NOT NULL,
  policy       TEXT NOT NULL,
  seed         INTEGER,
  options_json TEXT NOT NULL,
  status       TEXT NOT NULL DEFAULT 'running',
  peak_rate    REAL,
  mean_ms      REAL,
  ci_low_ms    REAL,
  ci_high_ms   REAL,
  trials       INTEGER NOT NULL DEFAULT 0,
  cost_s       REAL NOT NULL DEFAULT 0,
  message      TEXT,
  started_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  finished_at  TEXT
);
CREATE INDEX searches_by_sample ON searches(testbed, sample);
CREATE TABLE trials (
  id            INTEGER PRIMARY KEY,
  search_id     INTEGER NOT NULL REFERENCES searches(id),
  load_index    INTEGER NOT NULL,
  rate          REAL NOT NULL,
  runlength_s   REAL NOT NULL,
  achieved_rate REAL NOT NULL,
  sent          INTEGER NOT NULL,
  completed     INTEGER NOT NULL,
  errors        INTEGER NOT NULL,
  mean_ms       REAL NOT NULL,
  p50_ms REAL, p90_ms REAL, p95_ms REAL, p99_ms REAL, max_ms REAL,
  cost_s        REAL NOT NULL,
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX trials_by_search ON trials(search_id, load_index);
CREATE TABLE loads (
  search_id   INTEGER NOT NULL REFERENCES searches(id),
  load_index  INTEGER NOT NULL,
  rate        REAL NOT NULL,
  runlength_s REAL NOT NULL,
  trials      INTEGER NOT NULL,
  mean_ms     REAL, ci_low_ms REAL, ci_high_ms REAL,
  saturated   INTEGER NOT NULL,
  verdict     TEXT NOT NULL,
  PRIMARY KEY (search_id, load_index)
);
CREATE TABLE sim_truths (
  testbed     TEXT NOT NULL,
  sample      TEXT NOT NULL,
  model_hash  TEXT NOT NULL,           -- of the [sim] and [peak] text the truth was computed for
  peak_rate   REAL NOT NULL,
  region_low  REAL NOT NULL,
  region_high REAL NOT NULL,
  PRIMARY KEY (testbed, sample, model_hash)
);
)sql",
    // 1 -> 2: response surfaces [003 Alg. 1]: what was asked, and each planned sample in tour order
    // with the search that measured it (map-surface resumes from these).
    R"sql(
CREATE TABLE surfaces (
  id           INTEGER PRIMARY KEY,
  testbed      TEXT NOT NULL,
  params_key   TEXT NOT NULL,          -- canonical JSON of every parameter that shapes the surface
  params_json  TEXT NOT NULL,
  status       TEXT NOT NULL DEFAULT 'running',   -- running | done | budget
  started_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  finished_at  TEXT
);
CREATE INDEX surfaces_by_params ON surfaces(testbed, params_key, status);
CREATE TABLE surface_points (
  surface_id   INTEGER NOT NULL REFERENCES surfaces(id),
  position     INTEGER NOT NULL,       -- order of the nearest-neighbour tour
  sample       TEXT NOT NULL,
  sample_json  TEXT NOT NULL,
  search_id    INTEGER REFERENCES searches(id),   -- set in the transaction that creates the search
  slot         INTEGER,
  start_rate   REAL,
  seeded       INTEGER NOT NULL DEFAULT 0,     -- start_rate is a nearby sample's peak [003 §3.7]
  PRIMARY KEY (surface_id, position)
);
)sql",
    // 2 -> 3: the expectation stored with each search; calibrated demands per testbed [000 §2.1, §4.1.1].
    R"sql(
CREATE TABLE expectations (
  search_id       INTEGER PRIMARY KEY REFERENCES searches(id),
  peak_rate       REAL,                -- λ* the expectation model gives the sample; NULL: unbounded
  saturation_rate REAL,                -- λ_max; NULL: unbounded
  bottleneck      TEXT NOT NULL,
  calibrated_json TEXT NOT NULL,       -- JSON array: centers whose demand came from a calibration
  detail_json     TEXT NOT NULL,       -- JSON: the centers solved at λ*
  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE TABLE calibrations (
  id          INTEGER PRIMARY KEY,
  testbed     TEXT NOT NULL,
  center      TEXT NOT NULL,
  sample      TEXT NOT NULL,           -- canonical key of the sample it was measured at
  sample_json TEXT NOT NULL,
  demand_ms   REAL NOT NULL,           -- per visit
  visits      REAL,                    -- per request; NULL: not measured
  source      TEXT NOT NULL,
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX calibrations_by_testbed ON calibrations(testbed, id);
)sql",
    // 3 -> 4: the λ* interval of each search; the persisted Z-CART tree per testbed; mismatches and the
    // probes they schedule [000 §3.3].
    R"sql(
ALTER TABLE searches ADD COLUMN peak_low REAL;    -- loads the evidence cannot rule out as λ*
ALTER TABLE searches ADD COLUMN peak_high REAL;   -- NULL: unbounded above
CREATE TABLE zcart_trees (
  testbed      TEXT PRIMARY KEY,
  tree_json    TEXT NOT NULL,          -- ZCart::to_json()
  observations INTEGER NOT NULL,
  updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE TABLE mismatches (
  id              INTEGER PRIMARY KEY,
  testbed         TEXT NOT NULL,
  search_id       INTEGER NOT NULL REFERENCES searches(id),
  sample          TEXT NOT NULL,
  sample_json     TEXT NOT NULL,
  expected        REAL NOT NULL,       -- λ* of the expectation model
  measured        REAL NOT NULL,       -- λ* of the search
  ratio           REAL NOT NULL,       -- measured / expected
  attributes_json TEXT NOT NULL,       -- [{name, gain}] by information gain, best first
  center          TEXT,                -- the service center whose measured time deviates most
  status          TEXT NOT NULL DEFAULT 'open',   -- open | closed
  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  closed_at       TEXT
);
CREATE INDEX mismatches_by_testbed ON mismatches(testbed, status);
CREATE TABLE probes (
  id          INTEGER PRIMARY KEY,
  testbed     TEXT NOT NULL,
  mismatch_id INTEGER NOT NULL REFERENCES mismatches(id),
  sample      TEXT NOT NULL,
  sample_json TEXT NOT NULL,
  attribute   TEXT NOT NULL,           -- the factor this probe varies
  priority    REAL NOT NULL,           -- higher runs first
  not_before  INTEGER NOT NULL,        -- unix seconds
  status      TEXT NOT NULL DEFAULT 'planned',   -- planned | running | done | cancelled
  search_id   INTEGER REFERENCES searches(id),
  lock_owner  TEXT,
  locked_at   INTEGER,                 -- unix seconds
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX probes_due ON probes(testbed, status, not_before);
)sql",
    // 4 -> 5: the SUT's per-stage times of each trial; fixed-rate runs (`workbench trial`) as searches of
    // policy and status 'fixed'; what a mismatch compares (λ* or a fixed-rate mean) and the figures
    // behind its center [000 §3.2].
    R"sql(
ALTER TABLE trials ADD COLUMN stages_json TEXT;   -- {stage: mean ms per request}; NULL: not measured
ALTER TABLE mismatches ADD COLUMN metric TEXT NOT NULL DEFAULT 'peak_rate';   -- peak_rate | mean_ms
ALTER TABLE mismatches ADD COLUMN center_json TEXT;   -- [{center, predicted_ms, measured_ms, deviation}]
)sql",
    // 5 -> 6: the elasticity a seeded surface search aimed its first loads with
    // (docs/decisions.md#slope-prior), so that a resumed search makes the same decisions.
    R"sql(
ALTER TABLE surface_points ADD COLUMN seed_elasticity REAL;   -- d ln R / d ln λ of the neighbours; NULL: none
)sql",
    // 6 -> 7: one owner per search, surface point and probe: a lease with a heartbeat, which a
    // controller takes over only when its holder is dead (DESIGN.md "Security and failure").
    R"sql(
CREATE TABLE leases (
  resource     TEXT PRIMARY KEY,       -- "search:12", "point:3:5" (surface 3, position 5), "probe:7"
  owner_host   TEXT NOT NULL,
  owner_pid    INTEGER NOT NULL,
  owner_start  INTEGER NOT NULL,       -- the pid's start time (clock ticks after boot): pids are reused
  acquired_at  REAL NOT NULL,          -- unix seconds
  heartbeat_at REAL NOT NULL,          -- unix seconds; renewed while the owner lives
  cancel       INTEGER NOT NULL DEFAULT 0   -- someone asked the owner to stop (probe cancel)
);
CREATE INDEX leases_by_owner ON leases(owner_host, owner_pid);
)sql",
    // 7 -> 8: every process group a controller started on a testbed, until it is stopped: the next
    // run on the testbed kills what a dead controller left (DESIGN.md "Security and failure").
    R"sql(
CREATE TABLE processes (
  id                INTEGER PRIMARY KEY,
  testbed           TEXT NOT NULL,
  host              TEXT NOT NULL,      -- where it runs: "local" (the owner's machine) or user@host:port
  pgid              INTEGER NOT NULL,
  start_ticks       INTEGER NOT NULL,   -- its leader's start time there: /proc/PGID/stat field 22
  command           TEXT NOT NULL,
  owner_host        TEXT NOT NULL,      -- the controller that started it (process_identity.hpp)
  owner_pid         INTEGER NOT NULL,
  owner_start_ticks INTEGER NOT NULL,
  started_at        INTEGER NOT NULL    -- unix seconds
);
CREATE INDEX processes_by_testbed ON processes(testbed);
)sql",
    // 8 -> 9: the learned model that answers λ* (Z-CART, the recalibrated network or both, chosen by
    // held-out error), kept with the inputs it was learned from: a cache, recomputed when they change.
    R"sql(
CREATE TABLE learned_models (
  testbed    TEXT PRIMARY KEY,
  inputs     TEXT NOT NULL,          -- what it was learned from (experiment/model_learning.cpp)
  model_json TEXT NOT NULL,
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
)sql",
    // 9 -> 10: the expectation model's λ* per sample, keyed by the inputs it was solved from: a
    // cache, since a surface anchored to the model asks at every sample (bench/report/RESULTS.txt).
    R"sql(
CREATE TABLE expected_peaks (
  testbed   TEXT NOT NULL,
  sample    TEXT NOT NULL,
  inputs    TEXT NOT NULL,             -- hash of the config and calibrations (experiment/surface_fit.cpp)
  peak_rate REAL,                      -- NULL: unbounded
  PRIMARY KEY (testbed, sample, inputs)
);
)sql",
    // 10 -> 11: the I/O trace of a trial run with [workload] trace = true, for the storage what-if
    // modules [001 §III-C.6]: CSV as models/io_trace.hpp reads it.
    R"sql(
CREATE TABLE trial_traces (
  trial_id INTEGER PRIMARY KEY REFERENCES trials(id),
  ops      INTEGER NOT NULL,
  csv      TEXT NOT NULL
);
)sql",
};

int user_version(Database& db) {
  Statement s = db.prepare("PRAGMA user_version");
  s.step();
  return static_cast<int>(s.column_int(0));
}

}  // namespace

int current_schema_version() { return static_cast<int>(kMigrations.size()); }

void migrate(Database& db, int to_version) {
  const int target = to_version < 0 ? current_schema_version() : to_version;
  for (;;) {
    // Read the version inside the write transaction: two processes opening a new store at once
    // must not both apply the same migration.
    Transaction tx(db);
    int v = user_version(db);
    if (v > current_schema_version()) {
      throw Error(
          fmt::format("the store has schema version {}, newer than this workbench understands ({}); "
                      "use a newer workbench",
                      v, current_schema_version()));
    }
    if (v >= target) return;
    db.exec(kMigrations[static_cast<std::size_t>(v)]);
    db.exec(fmt::format("PRAGMA user_version = {}", v + 1));
    tx.commit();
  }
}

}  // namespace wb::store
