#!/usr/bin/env bash
# Regenerates the fio json+ outputs that fio_json_test.cpp reads, with the words workbench's fio
# adapter puts before the [workload] args (harness/generator_fio.cpp), on a scratch file.
# Usage: bash tests/harness/fio/capture.sh   (needs fio; a few seconds of disk I/O)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /var/tmp/wb-fio-capture-XXXXXX)
trap 'rm -rf "$work"' EXIT
run() {  # NAME RATE_IOPS ARGS...
  local name=$1 rate=$2
  shift 2
  fio --rate_iops="$rate" --rate_process=poisson --time_based --ramp_time=300000us --runtime=1000000us \
    --output-format=json+ --randseed=11 --name=wb --filename="$work/data" --size=32m "$@" >"$here/$name.json"
}
# 400/s over 2 jobs, random 4 KiB direct reads.
run randread 200 --rw=randread --bs=4k --iodepth=4 --numjobs=2 --ioengine=libaio --direct=1
# 300/s, 70% reads: rate_iops read,write.
run randrw 210,90 --rw=randrw --rwmixread=70 --bs=4k --iodepth=4 --ioengine=libaio --direct=1
# Far beyond the device: fio falls behind its schedule.
run overload 200000 --rw=randread --bs=64k --iodepth=2 --ioengine=libaio --direct=1
# A sync engine with iodepth > 1: fio prints "note: ..." lines before the JSON on stdout.
run notes 100 --rw=randread --bs=4k --iodepth=2 --ioengine=psync
fio --version
