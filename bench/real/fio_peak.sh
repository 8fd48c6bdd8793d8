#!/usr/bin/env bash
# workbench peak on the shipped fio testbed (configs/fio.toml) for one sample, next to an
# independent sweep run before and after it: fio by hand at fixed rates (SWEEP_RATES) on a scratch
# file laid out as the SUT does (same options, Poisson arrivals, 3 s windows after 0.5 s, two runs
# per rate), its mean completion latency interpolated where it crosses R_sat. Prints λ* with its
# interval, each sweep's crossing, the cost of all three, and whether each crossing lies inside.
# Usage: bash bench/real/fio_peak.sh [BUILD_DIR] [iodepth numjobs bs]   (default build/, 16 2 4k; needs
# fio and jq). Bounded: a few minutes. Every fio it starts ends by itself; the scratch folder is removed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
iodepth=${2:-16} numjobs=${3:-2} bs=${4:-4k}
workbench=$build/controller/workbench
work=$(mktemp -d /tmp/wb-fio-peak-XXXXXX)
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
scratch=/var/tmp/wb-fio-$port
trap 'rm -rf "$work" "$scratch"' EXIT
sed "s/^port = 7415$/port = $port/" "$root/configs/fio.toml" >"$work/fio.toml"
grep -q "^port = $port$" "$work/fio.toml" || { echo "fio_peak.sh: port line not replaced" >&2; exit 1; }
r_sat=$(sed -n 's/^r_sat_ms = //p' "$work/fio.toml")

# The sweep: fio at fixed rates on a scratch file laid out as the SUT does, until the mean of two
# 3 s windows crosses R_sat (linear interpolation between the two rates around it) or fio falls
# short of the rate by 1% ("sat": the midpoint of the two rates around the limit). Each rate is
# fio's own for the rate_iops given (its gaps are whole µs, less 0.5 on average), which at these
# rates lies up to 7 % above the rate asked.
sweep_rates=${SWEEP_RATES:-"8000 16000 24000 28000 32000 36000 40000 44000 48000 56000 64000 72000 80000 88000 96000 104000 112000 120000"}
# offered RATE -> what fio's schedule offers for rate_iops RATE/numjobs per job
offered() {
  awk -v r="$1" -v n="$numjobs" 'BEGIN { i = int(r / n + 0.5); printf "%.0f", n * 1e6 / (int(1e6 / i) - 0.5) }'
}
# mean_clat RATE -> "mean_ms achieved/s" of one window
mean_clat() {
  fio --rate_iops="$(awk -v r="$1" -v n="$numjobs" 'BEGIN { printf "%.0f", r / n }')" --rate_process=poisson \
    --time_based --ramp_time=500ms --runtime=3 --output-format=json --name=sweep --filename="$scratch/data" \
    --size=256m --rw=randread --bs="$bs" --iodepth="$iodepth" --numjobs="$numjobs" --ioengine=libaio --direct=1 |
    jq -r '[.jobs[].read] | "\((map(.clat_ns.mean * .clat_ns.N) | add) / (map(.clat_ns.N) | add) / 1e6) \((map(.total_ios) | add) / 3)"'
}
# sweep NAME: appends its rows to $work/NAME.txt, prints "crossing seconds"
sweep() {
  local started prev_rate=0 prev_ms=0 crossing=none rate m1 a1 m2 a2 ms
  started=$(date +%s.%N)
  rm -rf "$scratch" && mkdir -p "$scratch"
  fio --name=layout --filename="$scratch/data" --size=256m --create_only=1 >/dev/null
  for asked in $sweep_rates; do
    rate=$(offered "$asked")
    read -r m1 a1 < <(mean_clat "$asked")
    read -r m2 a2 < <(mean_clat "$asked")
    ms=$(awk -v a="$m1" -v b="$m2" 'BEGIN { printf "%.4f", (a + b) / 2 }')
    printf "%9s  %9s  %10.0f\n" "$rate" "$ms" "$(awk -v a="$a1" -v b="$a2" 'BEGIN { print (a + b) / 2 }')" >>"$work/$1.txt"
    if awk -v m="$ms" -v r="$r_sat" 'BEGIN { exit !(m >= r) }'; then
      crossing=$(awk -v r0="$prev_rate" -v m0="$prev_ms" -v r1="$rate" -v m1="$ms" -v s="$r_sat" \
        'BEGIN { if (r0 == 0) printf "<%.0f", r1; else printf "%.0f", r0 + (s - m0) * (r1 - r0) / (m1 - m0) }')
      break
    fi
    # fio short of the rate (as workbench's saturation test): the limit lies between the two rates.
    # Short by 1 % and by more than 5 Poisson sd of the two windows' I/Os, as workbench judges it.
    if awk -v a1="$a1" -v a2="$a2" -v r="$rate" \
      'BEGIN { a = (a1 + a2) / 2; exit !(a < 0.99 * r && (r - a) * 6 > 5 * sqrt(r * 6)) }'; then
      crossing=$(awk -v r0="$prev_rate" -v r1="$rate" 'BEGIN { if (r0 == 0) printf "<%.0f", r1; else printf "%.0f", (r0 + r1) / 2 }')
      crossing="${crossing}sat"
      break
    fi
    prev_rate=$rate prev_ms=$ms
  done
  rm -rf "$scratch"
  echo "$crossing $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')"
}
inside() {
  awk -v c="$1" -v l="$low" -v h="$high" \
    'BEGIN { if (c == "none" || c ~ /^</) print "n/a"; else { c += 0; print (c >= l && c <= h) ? "yes" : "no" } }'
}

# The sweep before and after the search: the machine is shared, and its drift shows between them.
read -r before before_s < <(sweep before)
started=$(date +%s.%N)
"$workbench" peak --config "$work/fio.toml" --store "$work/fio.db" \
  --set "iodepth=$iodepth,numjobs=$numjobs,bs=$bs" --json >"$work/peak.json" 2>"$work/peak.err" || true
peak_wall=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
status=$(jq -r .status "$work/peak.json")
lambda=$(jq -r '.peak_rate // 0' "$work/peak.json")
low=$(jq -r '.peak_interval.low // 0' "$work/peak.json")
high=$(jq -r '.peak_interval.high // 1e18' "$work/peak.json")

read -r after after_s < <(sweep after)

echo "sample iodepth=$iodepth numjobs=$numjobs bs=$bs, R_sat $r_sat ms (configs/fio.toml)"
printf "%-9s  %9s  %21s  %12s  %14s  %8s  %7s\n" status "λ*/s" "λ* interval/s" "peak cost" "sweep cross/s" "cost" inside
printf "%-9s  %9.0f  %21s  %12s  %14s  %8s  %7s\n" "$status" "$lambda" \
  "$(awk -v l="$low" -v h="$high" 'BEGIN { printf "[%.0f, %.0f]", l, h }')" \
  "$(jq -r '"\(.cost_s|floor) s (\(.trials))"' "$work/peak.json")" "before $before" "$before_s s" "$(inside "$before")"
printf "%-9s  %9s  %21s  %12s  %14s  %8s  %7s\n" "" "" "" "" "after $after" "$after_s s" "$(inside "$after")"
echo "peak wall time ${peak_wall} s; its loads:"
jq -r '.loads[] | "\(.rate|floor)/s  trials \(.trials)  mean \(.mean_ms // "-" | tostring | .[0:6]) ms  \(.verdict)\(if .saturated then " (saturated)" else "" end)"' \
  "$work/peak.json"
echo "the sweeps (rate/s fio offered, mean ms of two runs, achieved/s), before:"
cat "$work/before.txt"
echo "after:"
cat "$work/after.txt"
