#!/usr/bin/env bash
# workbench peak on the shipped nginx testbed (configs/nginx.toml), next to an independent sweep:
# for each worker count, the status and λ* workbench reports with its interval, and the highest
# rate wbload sustains open-loop against the same nginx (achieved >= 99% of offered, no errors or
# timeouts, 3 s windows at the config's 16 connections and CPUs, found by bisection to 0.5%). Goal: λ*
# within 5% of that rate (a cliff's knee is the last load below the step).
# Usage: bash bench/real/nginx_peak.sh [BUILD_DIR]   (default build/; needs nginx and jq)
# Bounded: about 2-4 minutes per worker count. Every nginx it starts is stopped on exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
workbench=$build/controller/workbench
wbload=$build/workloads/wbload
work=$(mktemp -d /tmp/wb-nginx-peak-XXXXXX)
chmod 755 "$work"  # nginx's workers (user nobody) read the page from here
nginx_pid=""
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cp -r "$root/configs/nginx" "$work/nginx"
sed "s/^port = 7412$/port = $port/" "$root/configs/nginx.toml" >"$work/nginx.toml"
grep -q "^port = $port$" "$work/nginx.toml" || { echo "nginx_peak.sh: port line not replaced" >&2; exit 1; }
url=http://127.0.0.1:$port/index.html
# wbload where workbench runs it (the config's [workload] cpus); nginx pins itself (nginx.conf).
cpus=$(sed -n 's/^cpus = "\(.*\)"$/\1/p' "$work/nginx.toml")
[ -n "$cpus" ] || { echo "nginx_peak.sh: no [workload] cpus in the config" >&2; exit 1; }

# sustained RATE -> exit 0 when wbload achieves >= 99% of RATE with no errors or timeouts
sustained() {
  taskset --cpu-list "$cpus" "$wbload" --json --protocol http --target "$url" --rate "$1" --duration 3 --warmup 0.5 --connections 16 \
    --max-connections 16 --threads 1 --timeout 2 |
    jq -e --argjson r "$1" '.achieved_rate >= 0.99 * $r and .errors.total == 0 and .timeouts == 0' >/dev/null
}

# The highest sustained rate between LOW (sustained) and HIGH (not), by bisection to 0.5%.
sweep() {
  local lo=$1 hi=$2 mid
  while awk -v l="$lo" -v h="$hi" 'BEGIN { exit !(h - l > 0.005 * l) }'; do
    mid=$(awk -v l="$lo" -v h="$hi" 'BEGIN { printf "%.0f", (l + h) / 2 }')
    if sustained "$mid"; then lo=$mid; else hi=$mid; fi
  done
  echo "$lo"
}

printf "%7s  %-9s  %9s  %21s  %9s  %11s  %7s  %12s\n" workers status "λ*/s" "λ* interval/s" "sweep/s" "λ*/sweep" loads "cost (trials)"
for workers in 1 2; do
  started=$(date +%s)
  "$workbench" peak --config "$work/nginx.toml" --store "$work/nginx.db" --set "workers=$workers" --json \
    >"$work/peak.json" 2>"$work/peak.err" || true
  peak_s=$(($(date +%s) - started))
  status=$(jq -r .status "$work/peak.json")
  lambda=$(jq -r '.peak_rate // 0' "$work/peak.json")
  interval=$(jq -r 'if .peak_interval then "[\(.peak_interval.low|floor), \(.peak_interval.high // "inf"|tostring|.[0:8])]" else "-" end' "$work/peak.json")
  loads=$(jq -r '.loads | length' "$work/peak.json")
  cost=$(jq -r '"\(.cost_s|floor) s (\(.trials))"' "$work/peak.json")
  # The same nginx, started as workbench starts it (the file it wrote), for the sweep.
  /usr/sbin/nginx -p "/tmp/wb-nginx-$port" -c nginx.conf \
    -g "daemon off; worker_processes $workers; pid /tmp/wb-nginx-$port/nginx.pid;" 2>"$work/nginx.err" &
  nginx_pid=$!
  sleep 0.5
  base=$(awk -v l="$lambda" 'BEGIN { printf "%.0f", (l > 0 ? l : 20000) }')
  lo=$(awk -v b="$base" 'BEGIN { printf "%.0f", b * 0.7 }')
  hi=$(awk -v b="$base" 'BEGIN { printf "%.0f", b * 1.3 }')
  while ! sustained "$lo"; do lo=$(awk -v l="$lo" 'BEGIN { printf "%.0f", l * 0.7 }'); done
  while sustained "$hi"; do hi=$(awk -v h="$hi" 'BEGIN { printf "%.0f", h * 1.3 }'); done
  best=$(sweep "$lo" "$hi")
  kill "$nginx_pid" && wait "$nginx_pid" 2>/dev/null || true
  nginx_pid=""
  printf "%7s  %-9s  %9.0f  %21s  %9s  %11s  %7s  %12s   (search %d s wall)\n" "$workers" "$status" "$lambda" \
    "$interval" "$best" "$(awk -v a="$lambda" -v b="$best" 'BEGIN { printf "%.3f", a / b }')" "$loads" "$cost" "$peak_s"
  # The search's loads, for reading a cliff or a search that ran out of loads.
  jq -r '.loads[] | "           \(.rate|floor)/s  trials \(.trials)  mean \(.mean_ms*1000|round/1000) ms  \(.verdict)\(if .saturated then " (saturated)" else "" end)"' \
    "$work/peak.json"
done
rm -rf "/tmp/wb-nginx-$port"
