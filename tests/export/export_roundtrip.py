#!/usr/bin/env python3
"""workbench export through the real binary on the simulated testbed.

Builds a small store (a surface over disks and threads, and one peak search outside it), exports
every table as CSV and as JSON, and checks: one row per row of the store, every value equal to the
store's (numbers exactly), surface fits and whatif answers equal to `report --json` and
`whatif --json`, CSV and JSON carrying the same data, quoting per RFC 4180 (a stage name with a
comma, quotes and line breaks), Ctrl-C stopping a whatif export with no file, and bad input
refused with one line, exit code 2 and no file or store created.

Usage: export_roundtrip.py WORKBENCH SOURCE_DIR (stdlib only).
"""
import csv
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

WORKBENCH, SOURCE = sys.argv[1], sys.argv[2]
CONFIG = os.path.join(SOURCE, "configs", "sim.toml")
TESTBED = "sim-nfs"
FACTORS = ["disks", "threads"]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args, timeout=120):
    return subprocess.run([WORKBENCH, *args], capture_output=True, text=True, timeout=timeout)


def must(*args):
    r = run(*args)
    if r.returncode != 0:
        sys.exit(f"workbench {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r.stdout


def export(store, what, fmt, *extra, out=None):
    """Exports to `out`; returns its text and its rows: lists of text cells (CSV, header first) or objects."""
    args = ["export", "--config", CONFIG, "--store", store, "--what", what, "--format", fmt, "--out", out, *extra]
    must(*args)
    with open(out, newline="", encoding="utf-8") as f:
        text = f.read()
    if fmt == "json":
        return text, json.loads(text)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return text, rows


def same(expected, text, value, where):
    """The CSV cell `text` and the JSON value `value` both hold `expected`."""
    if expected is None:
        check(text == "" and value is None, f"{where}: want missing, got CSV {text!r}, JSON {value!r}")
    elif isinstance(expected, bool):
        check(text == ("true" if expected else "false") and value is expected,
              f"{where}: want {expected}, got CSV {text!r}, JSON {value!r}")
    elif isinstance(expected, int):
        check(text == str(expected) and type(value) is int and value == expected,
              f"{where}: want {expected}, got CSV {text!r}, JSON {value!r}")
    elif isinstance(expected, float):
        ok = text != "" and float(text) == expected and isinstance(value, (int, float)) and float(value) == expected
        check(ok, f"{where}: want {expected!r}, got CSV {text!r}, JSON {value!r}")
    else:
        check(text == expected and value == expected, f"{where}: want {expected!r}, got CSV {text!r}, JSON {value!r}")


def identical(rows, objects, what):
    """CSV and JSON carry the same columns, rows and cells."""
    header = rows[0]
    check(len(objects) == len(rows) - 1, f"{what}: {len(rows) - 1} CSV rows, {len(objects)} JSON objects")
    for i, (row, obj) in enumerate(zip(rows[1:], objects)):
        check(list(obj.keys()) == header, f"{what} row {i}: JSON keys {list(obj)} differ from the header")
        check(len(row) == len(header), f"{what} row {i}: {len(row)} cells for {len(header)} columns")
        for col, text in zip(header, row):
            v = obj.get(col)
            if v is None:
                check(text == "", f"{what} row {i} {col}: JSON null, CSV {text!r}")
            elif isinstance(v, bool):
                check(text == ("true" if v else "false"), f"{what} row {i} {col}: JSON {v}, CSV {text!r}")
            elif isinstance(v, (int, float)):
                check(text != "" and float(text) == float(v), f"{what} row {i} {col}: JSON {v!r}, CSV {text!r}")
            else:
                check(text == v, f"{what} row {i} {col}: JSON {v!r}, CSV {text!r}")


def both(store, what, tmp, *extra):
    """Exports `what` in both formats and checks they agree; returns the header and, per row, the CSV
    cells by column with the JSON object."""
    tag = "-".join([what, *extra])
    _, rows = export(store, what, "csv", *extra, out=os.path.join(tmp, tag + ".csv"))
    _, objects = export(store, what, "json", *extra, out=os.path.join(tmp, tag + ".json"))
    identical(rows, objects, tag)
    header = rows[0]
    return header, [(dict(zip(header, row)), obj) for row, obj in zip(rows[1:], objects)]


def compare(records, expected_rows, what):
    """Each exported record holds the store's values: expected_rows are {column: value} dicts."""
    check(len(records) == len(expected_rows), f"{what}: {len(records)} rows exported, the store has {len(expected_rows)}")
    for i, ((cells, obj), want) in enumerate(zip(records, expected_rows)):
        for col, value in want.items():
            if col not in cells:
                check(False, f"{what}: no column {col}")
                continue
            same(value, cells[col], obj.get(col), f"{what} row {i} {col}")


def sample_columns(sample_json):
    return {"sample." + k: float(v) for k, v in json.loads(sample_json).items()}


def main():
    tmp = tempfile.mkdtemp(prefix="wb-export-")
    try:
        t0 = time.monotonic()
        store = os.path.join(tmp, "db")
        must("map-surface", "--config", CONFIG, "--store", store, "--factors", ",".join(FACTORS))
        # A search outside the surface's design (its tour has no threads = 32).
        must("peak", "--config", CONFIG, "--store", store, "--set", "disks=3,threads=32")
        db = sqlite3.connect(store)
        db.row_factory = sqlite3.Row

        # searches: the store's columns, the stored expectation and the gap report computes.
        want = []
        for r in db.execute(
                "SELECT s.*, e.peak_rate AS expected, e.bottleneck AS bottleneck "
                "FROM searches s LEFT JOIN expectations e ON e.search_id = s.id WHERE s.testbed = ? ORDER BY s.id",
                (TESTBED,)):
            m, e = r["peak_rate"], r["expected"]
            gap = (e - m) / m if m is not None and m > 0 and e is not None else None
            row = {"search_id": r["id"], "status": r["status"], "policy": r["policy"],
                   "target.confidence": r["confidence"], "target.accuracy": r["accuracy"], "seed": r["seed"],
                   "measured": m, "peak_interval.low": r["peak_low"],
                   "peak_interval.high": r["peak_high"] if r["peak_low"] is not None else None,
                   "trials": r["trials"], "cost_s": r["cost_s"], "expected": e,
                   "bottleneck": r["bottleneck"], "gap": gap,
                   "within_tolerance": abs(gap) <= 0.10 if gap is not None else None}
            row.update(sample_columns(r["sample_json"]))
            want.append(row)
        check(len(want) == 9, f"the store holds {len(want)} searches, expected the surface's 8 and a peak")
        header, searches = both(store, "searches", tmp)
        check(header[:3] == ["search_id", "sample.disks", "sample.threads"], f"searches header {header}")
        compare(searches, want, "searches")

        # loads: every row of the loads table, in load order within each search.
        want, order = [], {}
        for r in db.execute("SELECT * FROM loads ORDER BY search_id, load_index"):
            order[r["search_id"]] = order.get(r["search_id"], 0) + 1
            ci = None not in (r["mean_ms"], r["ci_low_ms"], r["ci_high_ms"])
            want.append({"search_id": r["search_id"], "order": order[r["search_id"]], "load_index": r["load_index"],
                         "rate": r["rate"], "runlength_s": r["runlength_s"], "trials": r["trials"],
                         "ci_ms.mean": r["mean_ms"] if ci else None, "ci_ms.low": r["ci_low_ms"] if ci else None,
                         "ci_ms.high": r["ci_high_ms"] if ci else None, "saturated": r["saturated"] != 0,
                         "verdict": r["verdict"]})
        _, loads = both(store, "loads", tmp)
        compare(loads, want, "loads")

        # trials: every row of the trials table.
        def trial_rows(conn):
            out = []
            for r in conn.execute("SELECT * FROM trials ORDER BY search_id, id"):
                row = {"search_id": r["search_id"], "load_index": r["load_index"], "offered_rate": r["rate"],
                       "created_at": r["created_at"]}
                for col in ["achieved_rate", "runlength_s", "sent", "completed", "errors", "mean_ms", "p50_ms",
                            "p90_ms", "p95_ms", "p99_ms", "max_ms", "cost_s"]:
                    row[col] = r[col]
                for stage, ms in json.loads(r["stages_json"] or "{}").items():
                    row["stage_ms." + stage] = ms
                out.append(row)
            return out
        want = trial_rows(db)
        header, trials = both(store, "trials", tmp)
        check(not any(c.startswith("stage_ms.") for c in header), "the simulated testbed reports no stages")
        compare(trials, want, "trials")

        # A stage name that needs quoting in the CSV header (comma, quotes, CR LF), on a copy of the
        # store: the SUT's per-stage times become stage_ms.<stage> columns, empty where not measured.
        staged = os.path.join(tmp, "staged.db")
        copy = sqlite3.connect(staged)
        db.backup(copy)
        odd = 'say "hi", then\r\nstop'
        first = copy.execute("SELECT min(id) FROM trials").fetchone()[0]
        copy.execute("UPDATE trials SET stages_json = ? WHERE id = ?", (json.dumps({"disk": 3.25, odd: 0.1}), first))
        copy.commit()
        copy.row_factory = sqlite3.Row
        want = trial_rows(copy)
        copy.close()
        text, _ = export(staged, "trials", "csv", out=os.path.join(tmp, "staged.csv"))
        check(text.startswith("search_id,") and '"stage_ms.say ""hi"", then\r\nstop"' in text.split("\r\n1,")[0],
              "the odd stage name is quoted in the header, its quotes doubled")
        header, staged_trials = both(staged, "trials", tmp)
        check(header[-2:] == ["stage_ms.disk", "stage_ms." + odd], f"stage columns {header[-2:]}")
        for row in want:
            row.setdefault("stage_ms.disk", None)
            row.setdefault("stage_ms." + odd, None)
        compare(staged_trials, want, "trials with stages")

        # surfaces: every point with a found search, measured = its λ*, the fit as report --json has it.
        report = json.loads(must("report", "--config", CONFIG, "--store", store, "--json"))
        fits = {s["surface_id"]: s for s in report["surfaces"]}
        want = []
        for r in db.execute(
                "SELECT p.surface_id, p.sample_json, p.search_id, s.peak_rate, f.status FROM surface_points p "
                "JOIN searches s ON s.id = p.search_id JOIN surfaces f ON f.id = p.surface_id "
                "WHERE s.status = 'found' AND s.peak_rate IS NOT NULL ORDER BY p.surface_id, p.position"):
            fit = fits[r["surface_id"]]
            point = next(p for p in fit["points"] if p["search_id"] == r["search_id"])
            fitted = point["fitted"]
            row = {"surface_id": r["surface_id"], "status": r["status"], "model": fit["model"],
                   "fit_error": fit["fit_error"], "r2": fit["r2"], "mape_loo": fit["mape_loo"],
                   "search_id": r["search_id"], "measured": r["peak_rate"], "fitted": fitted,
                   "error": (r["peak_rate"] - fitted) / fitted if fitted is not None else None}
            row.update(sample_columns(r["sample_json"]))
            want.append(row)
        check(len(want) == 8, f"{len(want)} surface points with a found search, expected 8")
        check(all(w["fitted"] is not None for w in want), "the surface has a fit")
        _, surfaces = both(store, "surfaces", tmp)
        compare(surfaces, want, "surfaces")

        # --search and --surface narrow the tables as they narrow report.
        peak_id = db.execute("SELECT max(id) FROM searches").fetchone()[0]
        _, one = both(store, "trials", tmp, "--search", str(peak_id))
        n = db.execute("SELECT count(*) FROM trials WHERE search_id = ?", (peak_id,)).fetchone()[0]
        check(len(one) == n and all(c["search_id"] == str(peak_id) for c, _ in one), "--search: its trials only")
        _, of_surface = both(store, "searches", tmp, "--surface", "1")
        check([c["search_id"] for c, _ in of_surface] == [str(i) for i in range(1, 9)], "--surface: its searches")

        # whatif at every sample searched or in a surface's design, each once; the peak's sample
        # answered as whatif --json answers it.
        distinct = {r[0] for r in db.execute("SELECT sample FROM searches UNION SELECT sample FROM surface_points")}
        check(len(distinct) == 9, f"{len(distinct)} distinct samples, expected 9")
        header, whatif = both(store, "whatif", tmp)
        by_sample = {}
        for cells, obj in whatif:
            key = f"disks={cells['sample.disks']},threads={cells['sample.threads']}"
            by_sample.setdefault(key, []).append(obj)
        check(set(by_sample) == distinct, f"whatif samples {sorted(by_sample)} differ from the store's")
        for key, objs in by_sample.items():
            check(objs[0]["source"] == "expectation" and sum(o["preferred"] for o in objs) == 1,
                  f"{key}: the expectation first, one preferred answer: {objs}")
        answers = json.loads(must("whatif", "--config", CONFIG, "--store", store, "--set", "disks=3,threads=32",
                                  "--json"))["answers"]
        want = []
        for a in answers:
            row = {"sample.disks": 3.0, "sample.threads": 32.0}
            for col in ["source", "metric", "unit", "value", "low", "high", "level", "fidelity", "fidelity_n",
                        "preferred"]:
                row[col] = a[col]
            row["rule"], row["note"] = a.get("rule"), a.get("note")  # the root's rule is ""
            want.append(row)
        compare([r for r in whatif if r[0]["sample.threads"] == "32"], want, "whatif disks=3,threads=32")
        check(any('"' in line for line in open(os.path.join(tmp, "whatif.csv"), encoding="utf-8")),
              "some whatif note needs quoting")

        # Ctrl-C stops a whatif export while it computes (the first sample solves the model for
        # seconds; the signal is sent once the export announces the samples): exit 130, no file.
        out = os.path.join(tmp, "all-whatif.csv")
        child = subprocess.Popen([WORKBENCH, "export", "--config", CONFIG, "--store", store, "--what", "whatif",
                                  "--out", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first_line = child.stderr.readline()
        check(first_line == f"export: answering whatif for {len(distinct)} samples (seconds each; Ctrl-C stops)\n",
              f"whatif export announces its {len(distinct)} samples: {first_line!r}")
        check(child.poll() is None, "whatif export still computing")
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        try:
            _, rest = child.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            child.kill()
            _, rest = child.communicate()
        after = time.monotonic() - sent
        check(rest.endswith("workbench: interrupted\n"), f"stopped by the handler, not the signal: {rest!r}")
        check(child.returncode == 130, f"whatif export exited {child.returncode} {after:.1f} s after SIGINT")
        check(not os.path.exists(out), "an interrupted export writes no file")
        check(not [f for f in os.listdir(tmp) if ".tmp-" in f], "an interrupted export leaves no temporary file")

        # Bad input: one line on stderr, exit 2, nothing on stdout, no file and no store created.
        before = sorted(os.listdir(tmp))
        base = ["export", "--config", CONFIG, "--store", store]
        bad = [
            (base + ["--what", "searches", "--format", "xml"], "--format"),
            (base + ["--what", "tables"], "--what"),
            (base + ["--what", "searches", "--search", "1", "--surface", "1"], "--surface"),
            (base + ["--what", "searches", "--out", os.path.join(tmp, "no-such-dir", "x.csv")], "no-such-dir"),
            (base + ["--what", "searches", "--search", "999", "--out", os.path.join(tmp, "bad.csv")], "--search 999"),
            (base + ["--what", "loads", "--surface", "99", "--out", os.path.join(tmp, "bad.csv")], "--surface 99"),
            (base + ["--what", "surfaces", "--search", "1"], "--search"),
            (["export", "--config", CONFIG, "--store", os.path.join(tmp, "new.db"), "--what", "searches"], "new.db"),
        ]
        for args, names in bad:
            r = run(*args)
            where = " ".join(args[5:])
            check(r.returncode == 2, f"{where}: exit {r.returncode}, stderr {r.stderr!r}")
            check(r.stdout == "", f"{where}: stdout {r.stdout!r}")
            check(r.stderr.count("\n") == 1 and r.stderr.startswith("workbench: ") and names in r.stderr,
                  f"{where}: want one line naming {names}, got {r.stderr!r}")
        check(sorted(os.listdir(tmp)) == before, f"bad input created {set(os.listdir(tmp)) - set(before)}")

        # stdout carries the same text as --out.
        r = run("export", "--config", CONFIG, "--store", store, "--what", "loads", "--format", "json")
        with open(os.path.join(tmp, "loads.json"), encoding="utf-8") as f:
            check(r.returncode == 0 and r.stdout == f.read(), "stdout and --out carry the same text")
        db.close()
        print(f"export_roundtrip: {len(failures)} failures in {time.monotonic() - t0:.1f} s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
