#!/usr/bin/env python3
"""Benchmark of the learning loop (mismatch -> probes -> Z-CART -> whatif) [000 §3], run as a user
runs it: on copies of configs/sim.toml whose [sim] (the truth) deviates from its [model] (the
expectation) in four different kinds of way, `workbench map-surface`, then `workbench agent --once`
until no probe is due, then `workbench whatif` at every sample, compared with `workbench sim truth`.

Per deviation it prints: flagged and true mismatches (a true one: the expectation off by more than
the mismatch tolerance from the truth), the tree's splits, the probes and their benchmarking hours,
and at the samples nobody measured the error of whatif's learned answer (Z-CART or the recalibrated
model, whichever whatif chose; else the expectation) next to the bare expectation and the fitted surface — inside the deviation
(where it moves the true λ* by more than 2 %) and outside it — and how often the learned answer's
interval holds the truth. Goals [issue "the learning loop learns what the model gets wrong"]:
<= 10 % at >= 90 % of unmeasured samples inside, <= 2 % outside, coverage >= the stated level.

  python3 bench/learning/run.py [--build build] [--points 8] [--only NAME] [--detail]
                                [--truth-cache DIR]

Everything runs on the simulated testbed's virtual clock (seconds per deviation); `sim truth`
dominates the wall time and is cached in --truth-cache (default /tmp/wb_bench_learning_truth).
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASE = os.path.join(ROOT, "configs", "sim.toml")
DISKS = [1, 2, 3, 4]
THREADS = [1, 2, 4, 8, 16, 32, 64, 100]

# name -> (what it is, [sim] center, replaced line, replacement). Each kind the issue names once:
# a new bottleneck above a threshold, one slowed resource at one level, a smooth drift with a
# factor, an interaction of two factors.
DEVIATIONS = {
    "lock": ("a lock: CPU demand 1 -> 8 ms as threads go 16 -> 32 and stays there (new bottleneck)",
             "cpu", "service_ms = 1.0",
             'service_ms = "1 + 7 * max(0, min(1, ({threads} - 16) / 16))"'),
    "slow-level": ("one slowed resource: the disks take 30 ms instead of 15 ms at disks = 2 only",
                   "disk", "service_ms = 15",
                   'service_ms = "15 + 15 * max(0, min({disks} - 1, 3 - {disks}))"'),
    "drift": ("a smooth drift: disk time grows with threads, 15 ms x (1 + threads / 50)",
              "disk", "service_ms = 15",
              'service_ms = "15 * (1 + {threads} / 50)"'),
    "interaction": ("an interaction: the disks slow to 30 ms only with disks >= 3 and threads >= 32",
                    "disk", "service_ms = 15",
                    'service_ms = "15 + 15 * max(0, min(1, {disks} - 2, ({threads} - 16) / 16))"'),
}


def deviating_text(name):
    text = open(BASE).read()
    if name is None:
        return text
    _, center, old, new = DEVIATIONS[name]
    at = text.index(f'[[sim.center]]\nname = "{center}"')
    line = text.index(old + "\n", at)
    assert line < text.index("[[model.center]]"), "the replacement must stay in [sim]"
    return text[:line] + new + text[line + len(old):]


class Workbench:
    def __init__(self, binary, config, store):
        self.binary, self.config, self.store = binary, config, store

    def run(self, *args, check=True):
        cmd = [self.binary, *args, "--config", self.config, "--store", self.store, "--json"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        if check and r.returncode != 0:
            sys.exit(f"bench: {' '.join(cmd)} exited {r.returncode}:\n{r.stderr}")
        return json.loads(r.stdout) if r.stdout.strip() else None, r.stderr


def sample_text(d, t):
    return f"disks={d},threads={t}"


def truths(binary, name, cache_dir):
    """The true λ* of every sample, from long simulations, cached per deviation."""
    os.makedirs(cache_dir, exist_ok=True)
    config = os.path.join(cache_dir, f"{name or 'base'}.toml")
    with open(config, "w") as f:
        f.write(deviating_text(name))
    wb = Workbench(binary, config, os.path.join(cache_dir, f"{name or 'base'}.db"))
    out = {}
    for d in DISKS:
        for t in THREADS:
            j, _ = wb.run("sim", "truth", "--set", sample_text(d, t))
            out[(d, t)] = j["peak_rate"]
    return out


def tree_splits(describe):
    """The split rules of a Z-CART description, in tree order (e.g. 'threads <= 24')."""
    seen = []
    for m in re.finditer(r"^\s+(\S+) (<=|>|=|!=|in) ([^:]+?):", describe, re.M):
        rule = f"{m.group(1)} {'<=' if m.group(2) == '>' else m.group(2)} {m.group(3)}"
        if m.group(2) in ("<=", ">") and rule not in seen:
            seen.append(rule)
    return seen


def pct(x):
    return f"{100 * x:+.1f}%"


def run_deviation(args, name, base_truth, truth):
    work = tempfile.mkdtemp(prefix=f"wb_bench_learning_{name}_")
    config = os.path.join(work, "sim.toml")
    with open(config, "w") as f:
        f.write(deviating_text(name))
    wb = Workbench(args.binary, config, os.path.join(work, "w.db"))
    wb.run("map-surface", "--factors", "disks,threads", "--points", str(args.points), check=False)
    rounds = 0
    for rounds in range(1, args.max_rounds + 1):
        j, _ = wb.run("agent", "--once")
        if j["ran"] == 0:
            break
    db = sqlite3.connect(wb.store)
    measured = {row[0] for row in db.execute("SELECT sample FROM searches WHERE status = 'found'")}
    probes = db.execute("SELECT COUNT(*), COALESCE(SUM(s.cost_s), 0) FROM probes p JOIN searches s "
                        "ON s.id = p.search_id WHERE p.status = 'done'").fetchone()
    surface_cost = db.execute("SELECT COALESCE(SUM(s.cost_s), 0) FROM searches s "
                              "WHERE s.id NOT IN (SELECT search_id FROM probes WHERE search_id IS NOT NULL)"
                              ).fetchone()[0]
    flagged = {row[0] for row in db.execute("SELECT DISTINCT sample FROM mismatches")}
    still_open = db.execute("SELECT COUNT(*) FROM mismatches WHERE status = 'open'").fetchone()[0]
    db.close()
    model, _ = wb.run("model", "show")
    describe = (model.get("zcart") or {}).get("describe", "")
    # Splits on derived attributes, as the factor conditions they amount to on the level grid.
    over_factors = {f["split"]: f for f in (model.get("zcart") or {}).get("factor_splits") or []}

    rows = []
    learned_why = ""
    for d in DISKS:
        for t in THREADS:
            key = sample_text(d, t)
            w, _ = wb.run("whatif", "--set", key)
            answers = {a["source"]: a for a in w["answers"]}
            # The learned answer: Z-CART (on the model as configured or recalibrated) or the
            # recalibrated model alone, whichever whatif chose by held-out error.
            learned = next((a for a in w["answers"] if a.get("preferred")), answers["expectation"])
            learned_why = (w.get("learned") or {}).get("why", learned_why)
            true = truth[(d, t)]
            rows.append({
                "sample": key, "truth": true, "measured": key in measured,
                "inside": abs(true / base_truth[(d, t)] - 1) > 0.02,
                "true_mismatch": abs(answers["expectation"]["value"] / true - 1) > 0.15,
                "flagged": key in flagged,
                "learned": learned["value"] / true - 1, "source": learned["source"],
                "low": learned.get("low"), "high": learned.get("high"), "level": learned.get("level"),
                "expectation": answers["expectation"]["value"] / true - 1,
                "surface": answers["surface"]["value"] / true - 1 if "surface" in answers else None,
            })
    splits = []
    for rule in tree_splits(describe):
        f = over_factors.get(rule)
        sides = [f"{side}: {f[side]}" for side in ("left", "right") if f and f.get(side)]
        if f and f.get("surrogate"):  # no box: the one-factor split nearest to it
            sides.append(f"nearest: left if {f['surrogate']} ({f['agree']}/{f['samples']})")
        splits.append(f"{rule} [{'; '.join(sides)}]" if sides else rule)
    # The leaves that correct the expectation, read over the factors where they are boxes.
    leaves = [f"{'cap ' + format(l['cap'], '.1f') if l['cap'] > 0 else 'x' + format(l['correction'], '.3g')}"
              f" where {l['box'] or '(no box)'}"
              for l in (model.get("zcart") or {}).get("factor_leaves") or []
              if l["cap"] > 0 or l["correction"] != 1]
    return {"name": name, "rows": rows, "splits": splits, "leaves": leaves, "probes": probes[0],
            "probe_h": probes[1] / 3600, "surface_h": surface_cost / 3600, "open": still_open,
            "rounds": rounds, "work": work, "learned_why": learned_why}


def summarize(r, detail):
    rows = r["rows"]
    true_mm = {x["sample"] for x in rows if x["true_mismatch"]}
    flagged = {x["sample"] for x in rows if x["flagged"]}
    inside = [x for x in rows if x["inside"] and not x["measured"]]
    outside = [x for x in rows if not x["inside"] and not x["measured"]]

    def share(xs, key, limit):
        ok = [x for x in xs if x[key] is not None and abs(x[key]) <= limit]
        return f"{len(ok)}/{len(xs)}"

    def worst(xs, key):
        vals = [abs(x[key]) for x in xs if x[key] is not None]
        return f"{100 * max(vals):.1f}%" if vals else "-"

    held = [x for x in rows if not x["measured"] and x["low"] is not None]
    covered = [x for x in held if x["low"] <= x["truth"] * (1 + 1e-9) and x["truth"] <= x["high"] * (1 + 1e-9)]
    levels = {x["level"] for x in held}
    print(f"\n== {r['name']}: {DEVIATIONS[r['name']][0]}")
    print(f"   mismatches: {len(flagged & true_mm)} of {len(true_mm)} true ones flagged, "
          f"{len(flagged - true_mm)} flagged that are not (|expectation/truth - 1| > 15 %); "
          f"{r['open']} left open; agent rounds {r['rounds']}")
    print(f"   tree splits: {', '.join(r['splits']) or '(none)'}")
    if r["leaves"]:
        print(f"   correcting leaves over the factors: {'; '.join(r['leaves'])}")
    print(f"   learned: {r['learned_why'] or '-'}")
    print(f"   cost: surface {r['surface_h']:.1f} h, {r['probes']} probes {r['probe_h']:.1f} h (simulated)")
    print(f"   {'unmeasured':<22} {'n':>3} {'learned':>10} {'worst':>7} {'expectation':>12} {'worst':>7} "
          f"{'surface':>9} {'worst':>7}")
    for label, xs, limit in (("inside, within 10%", inside, 0.10), ("outside, within 2%", outside, 0.02)):
        print(f"   {label:<22} {len(xs):>3} {share(xs, 'learned', limit):>10} {worst(xs, 'learned'):>7} "
              f"{share(xs, 'expectation', limit):>12} {worst(xs, 'expectation'):>7} "
              f"{share(xs, 'surface', limit):>9} {worst(xs, 'surface'):>7}")
    stated = ", ".join(f"{100 * v:.0f}%" if v else "not stated" for v in sorted(levels, key=lambda v: v or 0))
    print(f"   interval of the learned answer holds the truth at {len(covered)}/{len(held)} unmeasured samples "
          f"(stated level: {stated or '-'})")
    if detail:
        print(f"   {'sample':<20} {'truth':>7} {'in':>3} {'meas':>4} {'flag':>4} {'source':>11} {'learned':>8} "
              f"{'interval':>17} {'expect':>8} {'surface':>8}")
        for x in rows:
            interval = f"[{x['low']:.1f}, {x['high']:.1f}]" if x["low"] is not None else "-"
            surface = pct(x["surface"]) if x["surface"] is not None else "-"
            print(f"   {x['sample']:<20} {x['truth']:>7.1f} {'y' if x['inside'] else '':>3} "
                  f"{'y' if x['measured'] else '':>4} {'y' if x['flagged'] else '':>4} {x['source']:>11} "
                  f"{pct(x['learned']):>8} {interval:>17} {pct(x['expectation']):>8} {surface:>8}")
    return {"inside_ok": sum(1 for x in inside if abs(x["learned"]) <= 0.10), "inside": len(inside),
            "outside_ok": sum(1 for x in outside if abs(x["learned"]) <= 0.02), "outside": len(outside),
            "covered": len(covered), "held": len(held)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--points", type=int, default=8, help="map-surface --points (default 8)")
    p.add_argument("--only", action="append", choices=sorted(DEVIATIONS), help="run only this deviation")
    p.add_argument("--detail", action="store_true", help="print every sample")
    p.add_argument("--keep", action="store_true", help="keep each deviation's config and store")
    p.add_argument("--max-rounds", type=int, default=10, help="agent --once rounds at most (default 10)")
    p.add_argument("--truth-cache", default="/tmp/wb_bench_learning_truth")
    args = p.parse_args()
    args.binary = os.path.join(args.build, "controller", "workbench")
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"bench: {args.binary} not found (build first: bash dev/setup.sh build)")
    base_truth = truths(args.binary, None, args.truth_cache)
    totals = {}
    for name in args.only or list(DEVIATIONS):
        r = run_deviation(args, name, base_truth, truths(args.binary, name, args.truth_cache))
        s = summarize(r, args.detail)
        for k, v in s.items():
            totals[k] = totals.get(k, 0) + v
        if args.keep:
            print(f"   kept: {r['work']}")
        else:
            shutil.rmtree(r["work"])
    print(f"\nall: inside {totals['inside_ok']}/{totals['inside']} within 10% (goal >= 90%), "
          f"outside {totals['outside_ok']}/{totals['outside']} within 2% (goal all), "
          f"coverage {totals['covered']}/{totals['held']} (goal >= the stated level)")


if __name__ == "__main__":
    main()
