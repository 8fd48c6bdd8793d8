#!/usr/bin/env python3
"""Storage what-if on a testbed with a cache workbench controls [001 §III-C.6-7; docs/storage.md]:
configs/storage.toml (refserver with its own LRU cache of {cache_mb} MiB in front of two 5 ms
disks, wbload's storage mix), run as a user would:

 1. record a trace: `workbench trial` at one cache size with [workload] trace = true, then
    `workbench trace --trial N --out trace.csv`;
 2. hit rates: at each of --hit-sizes, `workbench whatif --json` gives the predicted read hit rate
    ([model.storage] replays the trace through the cache); refserver, started by hand with that
    cache, serves the same mix from wbload for a warm-up and a window, and its stats give the
    measured one;
 3. lambda*: `workbench whatif` at each of --peak-sizes (none measured yet), then `workbench peak`
    there; error of the what-if against the measured lambda*. Goal (seed 001): <= 15 %.

  python3 -u bench/storage/run.py [--build build] [--rate 300] [--trace-s 60]
                               [--hit-sizes 1,4,16] [--peak-sizes 1,2,8]
Wall time about 12 minutes; it needs a quiet machine (the searches time a real server).
"""
import argparse
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIX = os.path.join(ROOT, "workloads", "mixes", "rpc_storage.toml")


def run(args, check=True):
    r = subprocess.run(args, capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(args)}\n{r.stderr[-2000:]}")
    return r


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def refserver_stats(port, reset):
    """refserver's stats op (core/rpc_protocol.hpp: a 32-byte request body, op 4; flag 2 resets)."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        body = struct.pack(">BBHIQQQ", 4, 2 if reset else 0, 0, 0, 1, 0, 0)
        s.sendall(struct.pack(">I", len(body)) + body)
        head = b""
        while len(head) < 4:
            head += s.recv(4 - len(head))
        (length,) = struct.unpack(">I", head)
        data = b""
        while len(data) < length:
            data += s.recv(length - len(data))
        return json.loads(data[12:].decode())


def measured_hit_rate(build, mb, rate, warm_s, window_s):
    port = free_port()
    server = subprocess.Popen(
        [os.path.join(build, "sut", "refserver"), "--port", str(port), "--bind", "127.0.0.1", "--threads", "16",
         "--disks", "2", "--cpu-ms", "0.2", "--cpu-mode", "sleep", "--disk-ms", "5", "--cache-mb", str(mb),
         "--cache-block-kb", "4", "--cache-policy", "lru"], stdout=subprocess.PIPE, text=True)
    try:
        server.stdout.readline()  # "ready <port>"
        wbload = os.path.join(build, "workloads", "wbload")
        base = [wbload, "--protocol", "rpc", "--target", f"127.0.0.1:{port}", "--rate", str(rate),
                "--connections", "32", "--arrivals", "poisson", "--mix", MIX, "--json"]
        run(base + ["--duration", str(warm_s), "--seed", "11"])
        refserver_stats(port, True)
        run(base + ["--duration", str(window_s), "--seed", "12"])
        c = refserver_stats(port, False)["cache"]
        return c["read_hits"] / c["reads"], c["reads"]
    finally:
        server.terminate()
        server.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--rate", type=float, default=300)
    ap.add_argument("--trace-s", type=float, default=60)
    ap.add_argument("--hit-sizes", default="1,4,16")
    ap.add_argument("--peak-sizes", default="1,2,8")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    wb = os.path.join(build, "controller", "workbench")
    work = tempfile.mkdtemp(prefix="wb_bench_storage_")
    config = os.path.join(work, "storage.toml")
    with open(os.path.join(ROOT, "configs", "storage.toml")) as f:
        text = f.read().replace("{source}", ROOT).replace("port = 7412", f"port = {free_port()}")
    with open(config, "w") as f:
        f.write(text)
    common = ["--config", config]

    t0 = time.time()
    run([wb, "trial", *common, "--set", "cache_mb=4", "--rate", str(a.rate), "--runlength", str(a.trace_s),
         "--trials", "2"], check=False)  # exit 1 is a mismatch (no trace yet: no expectation), not a failure
    traces = json.loads(run([wb, "trace", *common, "--json"]).stdout)
    if not traces:
        sys.exit("no trace was stored")
    first = min(t["trial"] for t in traces)
    run([wb, "trace", *common, "--trial", str(first), "--out", os.path.join(work, "storage-trace.csv")])
    ops = next(t["ops"] for t in traces if t["trial"] == first)
    print(f"trace: trial {first}, {ops} operations at {a.rate:g}/s over {a.trace_s:g} s "
          f"({time.time() - t0:.0f} s to record)")

    def whatif(mb):
        return json.loads(run([wb, "whatif", *common, "--set", f"cache_mb={mb}", "--json"]).stdout)

    print("\nread hit rate: [model.storage]'s replay of the trace vs refserver's cache, same mix and rate")
    print(f"{'cache MiB':>9} {'predicted':>10} {'measured':>10} {'ratio':>7} {'reads':>7}")
    for mb in [float(x) for x in a.hit_sizes.split(",")]:
        predicted = whatif(mb)["storage"]["read_hit_rate"]
        measured, reads = measured_hit_rate(build, mb, a.rate, a.trace_s / 2, a.trace_s / 2)
        print(f"{mb:>9g} {predicted:>10.3f} {measured:>10.3f} {predicted / measured:>7.3f} {reads:>7}")

    print("\nlambda*: whatif before any search at that size, then workbench peak there (goal: <= 15 %)")
    print(f"{'cache MiB':>9} {'whatif':>9} {'disk/req':>9} {'measured':>9} {'interval':>20} {'error':>8} {'cost s':>7}")
    errors = []
    for mb in [float(x) for x in a.peak_sizes.split(",")]:
        w = whatif(mb)
        predicted = w["peak_rate"]
        r = run([wb, "peak", *common, "--set", f"cache_mb={mb:g}", "--json"], check=False)
        if r.returncode not in (0, 1):  # 1: the search ended without lambda* (said in its JSON)
            sys.exit(f"workbench peak failed ({r.returncode}): {r.stderr[-2000:]}")
        p = json.loads(r.stdout)
        found = p.get("peak_rate")
        if p.get("status") not in ("found", "cliff", "bistable") or not found:
            # Where the evidence left lambda*: the highest load below the region, the lowest above.
            below = [l["rate"] for l in p.get("loads", []) if l.get("verdict") == "below"]
            above = [l["rate"] for l in p.get("loads", []) if l.get("verdict") == "above"]
            where = f"between {max(below):.1f} and {min(above):.1f}" if below and above else ""
            print(f"{mb:>9g} {predicted:>9.1f} {w['storage']['disk_visits']:>9.3f} {p.get('status')} {where} "
                  f"({p.get('cost_s', 0):.0f} s)")
            continue
        err = (predicted - found) / found
        errors.append(abs(err))
        low, high = (p.get("peak_interval") or {}).get("low"), (p.get("peak_interval") or {}).get("high")
        interval = f"[{low:.0f}, {high:.0f}]" if low is not None and high is not None else ""
        print(f"{mb:>9g} {predicted:>9.1f} {w['storage']['disk_visits']:>9.3f} {found:>9.1f} {interval:>20} "
              f"{100 * err:>+7.1f}% {p.get('cost_s', 0):>7.0f}")
    if errors:
        print(f"\nwithin 15 %: {sum(e <= 0.15 for e in errors)} of {len(errors)}; "
              f"largest |error| {100 * max(errors):.1f} %")
    print(f"wall time {time.time() - t0:.0f} s")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
