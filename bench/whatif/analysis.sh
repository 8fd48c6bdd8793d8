#!/usr/bin/env bash
# Benchmark: `workbench whatif` stays responsive whatever the server, token and client counts —
# each answer within 1 s (the issue's limit for servers = 2000000000), and SIGINT during a long
# λ* search ends it within a solve with exit code 130. Prints per case the wall time of the whole
# command (process start, config, store and every solve), the limit and the answer it gave.
#   bash bench/whatif/analysis.sh [BUILD_DIR]
# Needs jq. Works in a fresh temporary directory; no server runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
wb="$PWD/$build/controller/workbench"
work=$(mktemp -d /tmp/wb_bench_analysis.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The issue's network: a center of 2e9 servers (1 ms) beside one disk (5 ms).
cat >"$work/billions.toml" <<'EOF'
[testbed]
name = "billions"

[peak]
r_sat_ms = 40
width = 0.1

[[model.center]]
name = "farm"
servers = 2000000000
service_ms = 1

[[model.center]]
name = "disk"
service_ms = 5
EOF
# configs/sim.toml with thread pools of 2000, 20000 and 2e9 threads.
sed 's/^levels = \[1, 2, 4, 8, 16, 32, 64, 100\]/levels = [16, 100, 2000, 20000, 2000000000]/' \
  configs/sim.toml >"$work/sim.toml"
# Ten centers of 1000 servers each: the exact closed recursion would take 2e10 steps at N = 2000.
{
  printf '[testbed]\nname = "farms"\n\n[peak]\nr_sat_ms = 4000\nwidth = 0.1\n'
  for i in 0 1 2 3 4 5 6 7 8 9; do
    printf '\n[[model.center]]\nname = "farm%d"\nservers = 1000\nservice_ms = %d\n' "$i" $((1000 + i))
  done
} >"$work/farms.toml"
# Ten pools of 100 threads, each an exact QBD at every rate tried: a λ* search of several seconds.
{
  printf '[testbed]\nname = "pools"\n\n[peak]\nr_sat_ms = 400\nwidth = 0.1\n'
  for i in 0 1 2 3 4 5 6 7 8 9; do
    printf '\n[[model.center]]\nname = "pool%d"\nkind = "pool"\nservers = 100\n' "$i"
    printf '\n[[model.center]]\nname = "cpu%d"\nservers = 2\nservice_ms = 1.0%d\nwithin = "pool%d"\n' "$i" "$i" "$i"
    printf '\n[[model.center]]\nname = "disk%d"\nservers = 2\nservice_ms = 10.%d\nwithin = "pool%d"\n' "$i" "$i" "$i"
  done
} >"$work/pools.toml"

now() { date +%s.%N; }
printf '%-44s %8s %6s %6s  %s\n' "case" "wall s" "limit" "within" "answer"
run() {  # NAME CONFIG ARGS...
  local name=$1 config=$2
  shift 2
  local start end out
  start=$(now)
  out=$("$wb" whatif --config "$work/$config" --store "$work/w.db" --json "$@")
  end=$(now)
  local s answer
  s=$(echo "$end - $start" | bc -l)
  answer=$(jq -r '.answers[0] | "\(.metric) = \(.value) \(.unit)"' <<<"$out")
  if jq -e '.closed' >/dev/null <<<"$out"; then
    answer="$answer; $(jq -r '.closed.method' <<<"$out"); bottleneck $(jq -r '.bottleneck' <<<"$out")"
  fi
  printf '%-44s %8.3f %6s %6s  %s\n' "$name" "$s" "1" "$(echo "$s < 1" | bc -l | sed 's/1/yes/;s/0/NO/')" "$answer"
}
run "servers=2e9: λ*" billions.toml
run "servers=2e9: λ*, --rate 150 --explain" billions.toml --rate 150 --explain
run "servers=2e9: --clients 1000" billions.toml --clients 1000 --metric throughput --explain
run "servers=2e9: --clients 1000000" billions.toml --clients 1000000 --metric throughput --explain
run "sim.toml threads=2000: λ*" sim.toml --set threads=2000
run "sim.toml threads=20000: λ*" sim.toml --set threads=20000
run "sim.toml threads=2e9: λ*" sim.toml --set threads=2000000000
run "sim.toml threads=2e9: --clients 20000" sim.toml --set threads=2000000000 --clients 20000 --metric throughput
run "10 x 1000 servers: --clients 2000" farms.toml --clients 2000 --metric throughput
run "10 x 1000 servers: --clients 1000000" farms.toml --clients 1000000 --metric throughput

# SIGINT half a second into the ten-pool λ* search (which runs for seconds uninterrupted).
start=$(now)
"$wb" whatif --config "$work/pools.toml" --store "$work/w.db" >/dev/null 2>"$work/err" &
pid=$!
sleep 0.5
sent=$(now)
kill -INT "$pid"
code=0
wait "$pid" || code=$?
end=$(now)
printf '%-44s %8.3f %6s %6s  exit %d, %s\n' "10 pools: SIGINT at 0.5 s, exit after" "$(echo "$end - $sent" | bc -l)" \
  "1" "$(echo "$end - $sent < 1" | bc -l | sed 's/1/yes/;s/0/NO/')" "$code" "$(cat "$work/err")"
start=$(now)
"$wb" whatif --config "$work/pools.toml" --store "$work/w.db" >/dev/null
end=$(now)
printf '%-44s %8.3f %6s %6s  %s\n' "10 pools: uninterrupted, for comparison" "$(echo "$end - $start" | bc -l)" "-" "-" \
  "(the QBD solves themselves; not a server-count cost)"
