#!/usr/bin/env bash
# Regenerates fio_lat.log, the fio per-I/O latency log that io_trace_test.cpp reads with
# read_fio_lat_log: 0.5 s of 4 KiB random reads and writes (70% reads) on an 8 MiB scratch file,
# logged with --write_lat_log and --log_offset=1 (one line per I/O).
# Usage: bash tests/cache/capture.sh   (needs fio; about a second of disk I/O under /var/tmp)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /var/tmp/wb-fio-lat-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
# rate_iops keeps the log short (about 100 lines); psync so each line is one synchronous I/O.
fio --name=wb --filename="$work/data" --size=8m --ioengine=psync --randseed=7 \
  --rw=randrw --rwmixread=70 --bs=4k --rate_iops=150,50 --time_based --runtime=500ms \
  --write_lat_log=wb --log_offset=1 --output=/dev/null
# fio writes wb_lat.1.log (total latency), wb_clat.1.log and wb_slat.1.log; keep the total.
cp "$work/wb_lat.1.log" "$here/fio_lat.log"
fio --version
