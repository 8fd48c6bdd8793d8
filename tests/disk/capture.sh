#!/usr/bin/env bash
# Regenerates the fio outputs disk_calibration_test.cpp reads with parse_fio_run: fio_randread.json,
# 0.3 s of 4 KiB direct random reads as `workbench disk calibrate` runs them, and
# fio_direct_refused.txt, direct reads of 1000 bytes (not a multiple of the sector size), which fio
# refuses with EINVAL and reports in notes before its JSON.
# Usage: bash tests/disk/capture.sh   (needs fio; about a second of disk I/O under /var/tmp)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /var/tmp/wb-fio-disk-XXXXXX)
trap 'rm -rf "$work"' EXIT
common=(--filename="$work/data" --size=8388608 --ioengine=psync --iodepth=1 --time_based
  --runtime=300000us --output-format=json)
fio --name=wb_rand_read --rw=randread --bs=4096 --direct=1 "${common[@]}" >"$here/fio_randread.json"
# fio exits 1 here; its stdout is what workbench reads.
fio --name=wb_seq_read --rw=read --bs=1000 --direct=1 "${common[@]}" >"$here/fio_direct_refused.txt" \
  2>/dev/null || true
fio --version
