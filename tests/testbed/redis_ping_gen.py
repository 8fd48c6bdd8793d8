#!/usr/bin/env python3
"""A small open-loop load generator written for the `command` adapter's test: inline Redis commands
(PING, or the one given) at a Poisson rate over a few connections, each latency measured from the
request's scheduled start. Prints one JSON document in its own layout, which the test's
[workload.output] maps."""
import argparse
import asyncio
import base64
import json
import os
import random
import struct
import sys
import time
import zlib


def hdr_histogram(latencies_us):
    """One HdrHistogram in its V2 compressed encoding (base64): values in µs, 3 significant digits."""
    counts = {}
    for v in latencies_us:
        v = max(1, int(v))
        bucket = (v | 2047).bit_length() - 11  # 2048 sub-buckets: 2 x 10^3 rounded up to a power of 2
        index = ((bucket + 1) << 10) + ((v >> bucket) - 1024)
        counts[index] = counts.get(index, 0) + 1
    payload = bytearray()

    def varint(n):
        z = n * 2 if n >= 0 else -n * 2 - 1  # ZigZag
        while True:
            if z < 0x80:
                payload.append(z)
                return
            payload.append((z & 0x7F) | 0x80)
            z >>= 7

    last = -1
    for index in sorted(counts):
        if index - last > 1:
            varint(-(index - last - 1))  # a run of empty buckets
        varint(counts[index])
        last = index
    header = struct.pack(">iiiiqqd", 0x1C849313, len(payload), 0, 3, 1, 3600 * 10**6, 1.0)
    packed = zlib.compress(header + bytes(payload))
    return base64.b64encode(struct.pack(">ii", 0x1C849314, len(packed)) + packed).decode()


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--target", required=True)  # host:port
    p.add_argument("--rate", type=float, required=True)
    p.add_argument("--duration", type=float, required=True)
    p.add_argument("--warmup", type=float, default=0)
    p.add_argument("--timeout", type=float, default=1)
    p.add_argument("--connections", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--command", default="PING")  # an inline Redis command with a one-line reply
    p.add_argument("--output", choices=["json", "hdr-log"], default="json")
    # A test of [workload] cpus: fail unless this process may run on exactly these CPUs.
    p.add_argument("--require-cpus", type=lambda s: {int(c) for c in s.split(",")})
    a = p.parse_args()
    if a.require_cpus is not None and os.sched_getaffinity(0) != a.require_cpus:
        sys.exit(f"redis_ping_gen.py: runs on CPUs {sorted(os.sched_getaffinity(0))}, not {sorted(a.require_cpus)}")
    host, port = a.target.rsplit(":", 1)
    rng = random.Random(a.seed)
    conns = [await asyncio.open_connection(host, int(port)) for _ in range(a.connections)]
    idle = asyncio.Queue()
    for c in conns:
        idle.put_nowait(c)
    start = time.monotonic()
    window = (a.warmup, a.warmup + a.duration)
    stats = {"ok": 0, "sent": 0, "failed": 0, "late": 0, "received": 0}
    hist = {}
    by_interval = {}  # hdr-log: answered latencies by 0.1 s interval of their scheduled start

    async def one(scheduled):
        measured = window[0] <= scheduled < window[1]
        try:
            conn = await asyncio.wait_for(idle.get(), a.timeout - (time.monotonic() - start - scheduled))
        except (asyncio.TimeoutError, ValueError):
            stats["late"] += measured
            return
        reader, writer = conn
        stats["sent"] += measured
        try:
            writer.write(a.command.encode() + b"\r\n")
            line = await reader.readline()
            done = time.monotonic() - start
            idle.put_nowait(conn)
        except OSError:
            stats["failed"] += measured
            return
        latency_us = round((done - scheduled) * 1e6)
        if not line.startswith(b"+"):  # "-ERR ...", or the connection closed
            stats["failed"] += measured
        elif latency_us > a.timeout * 1e6:
            stats["late"] += measured
        else:
            if scheduled < window[1]:
                by_interval.setdefault(int(scheduled * 10), []).append(latency_us)
            if window[0] <= done < window[1]:
                stats["received"] += 1
            if measured:
                stats["ok"] += 1
                hist[latency_us] = hist.get(latency_us, 0) + 1

    tasks = []
    t = rng.expovariate(a.rate)
    while t < window[1]:
        delay = t - (time.monotonic() - start)
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(t)))
        t += rng.expovariate(a.rate)
    await asyncio.gather(*tasks)
    if a.output == "hdr-log":
        print("#[Histogram log format version 1.3]")
        print(f"#[StartTime: {time.time():.3f} (seconds since epoch)]")
        print('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"')
        for i in sorted(by_interval):
            values = by_interval[i]
            print(f"{i / 10:.3f},0.100,{max(values) / 1000:.3f},{hdr_histogram(values)}")
        return
    print(json.dumps({
        "summary": {"ok": stats["ok"], "sent": stats["sent"], "failed": stats["failed"],
                    "late": stats["late"], "throughput": stats["received"] / a.duration},
        "latency": {"unit": "us", "histogram": [[v, n] for v, n in sorted(hist.items())]},
    }))


asyncio.run(main())
