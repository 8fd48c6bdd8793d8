#!/usr/bin/env bash
# The README's main command, `workbench peak --config configs/demo.toml --target 95/90`, N times
# from scratch (a fresh store, a free port each), as a newcomer runs it: the wall time of each run,
# its trials and benchmarking cost, λ*, and whether λ* lies within 15 % of refserver's analytic peak
# at the demo's sample (252.7/s at threads=8, disks=2: tests/testbed/peak_local_test.cpp).
# Goal: median wall time <= 120 s.
# Usage: bash bench/real/demo_runs.sh [BUILD_DIR] [N]   (default build/, 5; needs jq)
# Bounded: N searches, each by the demo's max_loads and max_trials (about 2 minutes each).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
runs=${2:-5}
work=$(mktemp -d /tmp/wb-demo-runs-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/configs"
ln -s "$root/workloads" "$work/workloads"
analytic=252.7
low=$(awk -v a=$analytic 'BEGIN { printf "%.1f", 0.85 * a }')
high=$(awk -v a=$analytic 'BEGIN { printf "%.1f", 1.15 * a }')
free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
printf "%-4s %8s %9s %7s %7s %8s %-9s %s\n" run "wall s" "wall/120" trials "cost s" "λ*/s" status \
  "λ* in [$low, $high]"
walls=()
for i in $(seq "$runs"); do
  sed "s/^port = 7411$/port = $(free_port)/" "$root/configs/demo.toml" >"$work/configs/demo.toml"
  start=$(date +%s.%N)
  "$build/controller/workbench" peak --config "$work/configs/demo.toml" --store "$work/demo-$i.db" \
    --target 95/90 --json >"$work/peak.json" 2>"$work/peak.err" || true
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  walls+=("$wall")
  read -r status lambda trials cost < <(jq -r '"\(.status) \(.peak_rate // 0) \(.trials) \(.cost_s|floor)"' \
    "$work/peak.json")
  inside=$(awk -v l="$lambda" -v a="$low" -v b="$high" 'BEGIN { print (l >= a && l <= b) ? "yes" : "no" }')
  printf "%-4s %8s %9.2f %7s %7s %8.1f %-9s %s\n" "$i" "$wall" "$(awk -v w="$wall" 'BEGIN { print w / 120 }')" \
    "$trials" "$cost" "$lambda" "$status" "$inside"
done
median=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "median wall time: $median s (goal <= 120 s: ratio $(awk -v m="$median" 'BEGIN { printf "%.2f", m / 120 }'))"
