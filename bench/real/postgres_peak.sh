#!/usr/bin/env bash
# PostgreSQL 15 with pgbench (configs/postgres.toml), two checks, one run each:
# 1. workbench's λ* with its interval at clients=8, next to an independent sweep: the same server
#    (configs/postgres/start.sh) and pgbench run by hand at fixed Poisson rates, three runs of 6 s
#    each (1 s warm-up dropped; PostgreSQL's stalls make one run's mean a lottery), and the rate
#    where the mean of their mean latencies crosses R_sat by linear interpolation.
#    Goal: the crossing inside workbench's interval. The cost of both.
# 2. Black-box calibration: peaks at the corners a user measures first (clients 2 and 16, and 8 with
#    the small shared_buffers, beside step 1's clients=8), `model calibrate --method fit` on them
#    (its extrapolation table: queueing fit vs regressions), then `whatif` at three samples nobody
#    measured, then `peak` there. Goal: whatif within 15 % of the measured λ*.
# Usage: bash bench/real/postgres_peak.sh [BUILD_DIR]   (default build/; needs PostgreSQL 15, jq)
# Bounded: each search by the config's max_loads; about 30 minutes in all on a 2-core machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
workbench=$build/controller/workbench
work=$(mktemp -d /tmp/wb-postgres-peak-XXXXXX)
server_pgid=""
cleanup() {
  [ -z "$server_pgid" ] || kill -TERM -- "-$server_pgid" 2>/dev/null || true
  sleep 1
  rm -rf "$work"
}
trap cleanup EXIT

port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -e "s/^port = 7413$/port = $port/" -e "s|{config_dir}|$root/configs|" "$root/configs/postgres.toml" >"$work/pg.toml"
grep -q "^port = $port$" "$work/pg.toml" || { echo "postgres_peak.sh: port line not replaced" >&2; exit 1; }
r_sat=$(awk -F' = ' '/^r_sat_ms/ { print $2 }' "$work/pg.toml")
store=$work/pg.db

peak() {  # peak SET -> prints "status λ* low high cost_s trials"
  "$workbench" peak --config "$work/pg.toml" --store "$store" --set "$1" --json >"$work/peak.json" 2>"$work/peak.err" || true
  jq -r '"\(.status) \(.peak_rate // 0) \(.peak_interval.low // 0) \(.peak_interval.high // 0) \(.cost_s|floor) \(.trials)"' \
    "$work/peak.json"
}

echo "== 1. λ* at clients=8 against a fixed-rate sweep with pgbench (R_sat = $r_sat ms)"
read -r status lambda low high cost trials < <(peak clients=8)
echo "workbench: $status, λ* = $lambda/s, interval [$low, $high]/s, $cost s of benchmarking in $trials trials"

# The server as workbench starts it, in its own process group.
setsid sh "$root/configs/postgres/start.sh" "$port" "/tmp/wb-postgres-$port" 128MB 40 16 >"$work/server.out" 2>&1 &
for _ in $(seq 600); do grep -q ready "$work/server.out" && break; sleep 0.1; done
grep -q ready "$work/server.out" || { cat "$work/server.out" >&2; exit 1; }
server_pgid=$(ps -o pgid= -p $! | tr -d ' ')
# mean RATE -> the mean latency (ms) of transactions scheduled after the first second, 6 s run.
mean_at() {
  (
    cd "$work" || exit 1
    rm -f sweep_log.*
    pgbench -h 127.0.0.1 -p "$port" -U bench --no-vacuum --builtin=tpcb-like --client 8 --jobs 2 --time 6 \
      --rate "$1" --latency-limit 1000 --log --log-prefix=sweep_log bench >/dev/null 2>&1 || true
    cat sweep_log.* | awk '$3 != "skipped" && $3 != "failed" {
        done = $5 * 1e6 + $6; start = done - $3; n++; s[n] = start; l[n] = $3; if (n == 1 || start < t0) t0 = start }
      END { for (i = 1; i <= n; i++) if (s[i] >= t0 + 1e6) { sum += l[i]; c++ } printf "%.3f\n", c ? sum / c / 1000 : 1e9 }'
  )
}
base=$(awk -v l="$lambda" 'BEGIN { printf "%.0f", (l > 0 ? l : 300) }')
sweep_started=$(date +%s)
prev_rate=0 prev_mean=0 crossing=""
for f in 0.5 0.7 0.8 0.85 0.9 0.95 1.0 1.05 1.1 1.2 1.35 1.5; do
  rate=$(awk -v b="$base" -v f="$f" 'BEGIN { printf "%.0f", b * f }')
  runs="$(mean_at "$rate") $(mean_at "$rate") $(mean_at "$rate")"
  mean=$(echo "$runs" | awk '{ printf "%.3f", ($1 + $2 + $3) / 3 }')
  printf "  sweep %6s/s: mean %s ms (runs: %s)\n" "$rate" "$mean" "$runs"
  if [ -z "$crossing" ] && awk -v m="$mean" -v r="$r_sat" 'BEGIN { exit !(m >= r) }'; then
    crossing=$(awk -v r0="$prev_rate" -v m0="$prev_mean" -v r1="$rate" -v m1="$mean" -v s="$r_sat" \
      'BEGIN { if (r0 == 0) { print r1; exit } printf "%.1f", r0 + (s - m0) * (r1 - r0) / (m1 - m0) }')
    break
  fi
  prev_rate=$rate prev_mean=$mean
done
sweep_s=$(($(date +%s) - sweep_started))
kill -TERM -- "-$server_pgid" 2>/dev/null || true
server_pgid=""
sleep 2
inside=$(awk -v c="${crossing:-0}" -v l="$low" -v h="$high" 'BEGIN { print (c >= l && c <= h) ? "yes" : "no" }')
printf "%-10s %9s %21s %12s %10s %9s %15s %12s\n" status "λ*/s" "interval/s" "sweep R_sat" "inside?" "λ*/sweep" "workbench cost" "sweep cost"
printf "%-10s %9.1f %21s %12s %10s %9s %15s %12s\n" "$status" "$lambda" "[$low, $high]" "${crossing:-none}" "$inside" \
  "$(awk -v a="$lambda" -v b="${crossing:-0}" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')" \
  "${cost} s" "${sweep_s} s"

echo
echo "== 2. Black-box calibration: fit on four measured samples, whatif elsewhere, then measured"
for set in clients=2 clients=16 "clients=8,shared_buffers=16MB"; do
  read -r s2 l2 _ _ _ _ < <(peak "$set")
  echo "measured $set: $s2, λ* = $l2/s"
done
"$workbench" model calibrate --config "$work/pg.toml" --store "$store" --method fit
# Every what-if first (answered from the two measured samples only), then the measurements.
samples=(clients=4 "clients=4,shared_buffers=16MB" "clients=16,shared_buffers=16MB")
declare -A predicted expected
for set in "${samples[@]}"; do
  "$workbench" whatif --config "$work/pg.toml" --store "$store" --set "$set" --json >"$work/whatif.json"
  predicted[$set]=$(jq -r '[.answers[] | select(.preferred)][0] | "\(.value // 0) \(.source)"' "$work/whatif.json")
  expected[$set]=$(jq -r '[.answers[] | select(.source == "expectation")][0].value // 0' "$work/whatif.json")
done
printf "%-32s %22s %16s %12s %9s %9s\n" sample "whatif λ*/s (source)" "expectation/s" "measured/s" error "exp. err"
for set in "${samples[@]}"; do
  read -r st measured _ _ _ _ < <(peak "$set")
  read -r value source <<<"${predicted[$set]}"
  err() { awk -v p="$1" -v m="$measured" 'BEGIN { if (m > 0) printf "%+.1f%%", 100 * (p / m - 1); else print "-" }'; }
  printf "%-32s %22s %16.1f %12.1f %9s %9s   (%s)\n" "$set" "$(printf "%.1f (%s)" "$value" "$source")" \
    "${expected[$set]}" "$measured" "$(err "$value")" "$(err "${expected[$set]}")" "$st"
done
