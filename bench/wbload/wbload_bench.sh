#!/usr/bin/env bash
# wbload benchmarks. Prints three tables, each next to its peer or limit:
#   1. Peak against nginx (1 worker, loopback): the highest rate λ wbload sustains open-loop on one
#      thread with achieved >= 99% of offered, vs the throughput `wrk -t1` reaches with the same
#      connection count. Goal: ratio >= 1.0.
#   2. Rate accuracy: achieved/offered at 10%, 50%, 90% of wbload's sustained max (c = 32).
#   3. Coordinated omission: a server that stalls 1 s every 10 s, offered 50% of its capacity for
#      30 s. wbload's p99 (rpc against refserver, and http against stall_http_server) vs wrk's p99
#      (http against stall_http_server, closed loop with 2 connections = 50% load) vs the
#      expected p99 derived below.
#
# Usage: wbload_bench.sh BUILD_DIR   (run by `ninja bench_wbload`; needs nginx, wrk, jq)
# Bounded: about 5-6 minutes in all. Every server it starts is killed on exit.
set -euo pipefail

BUILD=${1:?usage: wbload_bench.sh BUILD_DIR}
WBLOAD=$BUILD/workloads/wbload
REFSERVER=$BUILD/sut/refserver
STALLER=$BUILD/bench/wbload/stall_http_server
WORK=$(mktemp -d /tmp/wbload-bench-XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
              echo $((20000 + RANDOM % 20000)); }
wait_ready() { # FILE -> port from "ready <port>"
  for _ in $(seq 100); do
    if grep -q '^ready ' "$1" 2>/dev/null; then awk '/^ready /{print $2; exit}' "$1"; return; fi
    sleep 0.1
  done
  echo "server did not start: $(cat "$1")" >&2; exit 1
}
# wbload ARGS... -> JSON on stdout
wbload_json() { "$WBLOAD" --json "$@"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

# ---------------------------------------------------------------------------------------------
# nginx, 1 worker, static 612-byte-like page, keep-alive unlimited
NGX=$WORK/nginx
mkdir -p "$NGX/html"
head -c 612 /dev/zero | tr '\0' 'a' > "$NGX/html/index.html"
NPORT=$(free_port)
cat > "$NGX/nginx.conf" <<EOF
worker_processes 1;
daemon off;
master_process off;
pid $NGX/nginx.pid;
error_log $NGX/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 10000000;
  client_body_temp_path $NGX/body;
  server { listen 127.0.0.1:$NPORT; root $NGX/html; }
}
EOF
/usr/sbin/nginx -p "$NGX" -c "$NGX/nginx.conf" &
PIDS+=($!)
sleep 0.5
URL=http://127.0.0.1:$NPORT/index.html

# sustains RATE C -> prints achieved rate if achieved >= 99% offered with no errors/timeouts
probe() {
  local rate=$1 c=$2 j
  j=$(wbload_json --protocol http --target "$URL" --rate "$rate" --duration 3 --warmup 0.5 \
        --connections "$c" --max-connections "$c" --threads 1 --timeout 2)
  echo "$j" > "$WORK/last.json"
  jq -r --argjson r "$rate" 'if (.achieved_rate >= 0.99 * $r and .errors.total == 0 and .timeouts == 0)
                              then "ok \(.achieved_rate) \(.late_sends) \(.sent)" else "fail \(.achieved_rate) 0 1" end' <<< "$j"
}

echo "== 1. peak against nginx (1 worker, loopback), one client thread =="
# Columns: the highest fraction f of wrk's closed-loop throughput that wbload sustains open-loop
# (achieved >= 99% offered, no errors or timeouts, 3 s windows) -- the ratio, goal >= 1.0 -- with
# the wrk figure and λ = f x wrk of that probe; the share of late sends at that λ; and, as a
# second view of raw generator capacity, what wbload achieves when offered 1.5x wrk's figure (open
# loop past saturation, so the backlog waits and times out client-side).
# Paired: every wbload probe runs right after its own 3 s wrk run, and is offered f x that wrk
# figure. On this shared 2-vCPU machine nginx's throughput swings up to 2x within seconds (whether
# the generator shares nginx's core, other jobs), so a single wrk figure compared with probes made
# up to half a minute later measured the machine's drift more than either generator.
# Search over f: from 1.00 up by 0.04 while sustained, then bisection down to 0.02.
printf "%6s %12s %14s %12s %8s %11s %16s\n" conns "wrk_req/s" "wbload_max_λ" achieved ratio late_sends "wbload@1.5x_wrk"
declare -A WB_MAX
wrk_rate() { wrk -t1 -c"$1" -d3s "$URL" | awk '/^Requests\/sec/{printf "%.0f", $2}'; }
for C in 16 32 64; do
  # paired_probe F -> "verdict achieved late sent wrk rate"
  paired_probe() {
    local w r
    w=$(wrk_rate "$C"); r=$(awk -v w="$w" -v f="$1" 'BEGIN { printf "%.0f", w * f }')
    echo "$(probe "$r" "$C") $w $r"
  }
  lo=0; hi=0; f=1.00; best=(0 0 1 0 0)  # achieved late sent wrk rate
  for _ in 1 2 3 4; do
    read -r verdict ach late sent w r <<< "$(paired_probe "$f")"
    if [[ $verdict == ok ]]; then lo=$f; best=("$ach" "$late" "$sent" "$w" "$r"); f=$(awk -v f="$f" 'BEGIN { printf "%.2f", f + 0.04 }');
    else hi=$f; break; fi
  done
  [[ $hi == 0 ]] && hi=$f
  while awk -v l="$lo" -v h="$hi" 'BEGIN { exit !(h - l > 0.021) }'; do
    mid=$(awk -v l="$lo" -v h="$hi" 'BEGIN { printf "%.2f", (l + h) / 2 }')
    read -r verdict ach late sent w r <<< "$(paired_probe "$mid")"
    if [[ $verdict == ok ]]; then lo=$mid; best=("$ach" "$late" "$sent" "$w" "$r"); else hi=$mid; fi
  done
  WB_MAX[$C]=${best[4]}
  W15=$(wrk_rate "$C")
  read -r _ over _ <<< "$(probe "$(( W15 * 3 / 2 ))" "$C")"
  printf "%6d %12.0f %14d %12.0f %8s %11s %16.0f\n" "$C" "${best[3]}" "${best[4]}" "${best[0]}" "$lo" \
    "$(awk -v l="${best[1]}" -v s="${best[2]}" 'BEGIN { printf "%.1f%%", 100 * l / s }')" "$over"
done
[[ ${WB_MAX[32]} -gt 0 ]] || WB_MAX[32]=$(wrk_rate 32)  # nothing sustained at c = 32: use wrk's figure below

# CPU cost per request, less sensitive than throughput to other processes sharing the cores:
# user+sys seconds of the generator process / requests it completed (c = 32, both saturating).
echo
echo "-- CPU per request at saturation (c = 32): user+sys time of the generator / completed requests --"
RATE15=$(( ${WB_MAX[32]} * 3 / 2 ))
/usr/bin/time -f "%U %S" -o "$WORK/t_wb" "$WBLOAD" --json --protocol http --target "$URL" --rate "$RATE15" \
  --duration 5 --connections 32 --max-connections 32 --timeout 30 > "$WORK/wb.json"
/usr/bin/time -f "%U %S" -o "$WORK/t_wrk" wrk -t1 -c32 -d5s "$URL" > "$WORK/wrk.txt"
WB_REQ=$(jq '.completed' "$WORK/wb.json")  # every request of the window completes (long timeout)
WRK_REQ=$(awk '/requests in/{print $1}' "$WORK/wrk.txt")
WB_US=$(awk -v n="$WB_REQ" '{ printf "%.2f", ($1 + $2) * 1e6 / n }' "$WORK/t_wb")
WRK_US=$(awk -v n="$WRK_REQ" '{ printf "%.2f", ($1 + $2) * 1e6 / n }' "$WORK/t_wrk")
printf "%-8s %12s %14s\n" generator requests "cpu_us/request"
printf "%-8s %12s %14s\n" wbload "$WB_REQ" "$WB_US"
printf "%-8s %12s %14s\n" wrk "$WRK_REQ" "$WRK_US"
echo "wrk/wbload cost ratio: $(ratio "$WRK_US" "$WB_US")  (> 1: wbload needs less CPU per request)"

echo
echo "== 2. rate accuracy against nginx (c = 32, one thread), fractions of wbload's max ${WB_MAX[32]}/s =="
printf "%8s %12s %12s %16s %12s %10s\n" fraction offered achieved achieved/offered late_sends p99_ms
for F in 0.10 0.50 0.90; do
  R=$(awk -v m="${WB_MAX[32]}" -v f="$F" 'BEGIN { printf "%.0f", m * f }')
  J=$(wbload_json --protocol http --target "$URL" --rate "$R" --duration 5 --warmup 0.5 --connections 32 \
        --max-connections 32 --timeout 2)
  jq -r --arg f "$F" '[$f, .offered_rate, .achieved_rate, (.achieved_rate / .offered_rate),
                       (100 * .late_sends / .sent), .latency_ms.p99] |
                      "\(.[0])  \(.[1] | floor)  \(.[2] | floor)  \(.[3] * 10000 | round / 10000)  \(.[4] * 10 | round / 10)%  \(.[5])"' <<< "$J" |
    awk '{ printf "%8s %12s %12s %16s %12s %10.3f\n", $1, $2, $3, $4, $5, $6 }'
done

# ---------------------------------------------------------------------------------------------
# 3. Coordinated omission. Server: 4 workers, 5 ms mean service (refserver: 1 ms CPU + 4 ms disk,
# 4 disks, sleep mode; stall_http_server: 4 slots x 5 ms fixed), capacity μ = 800/s; stall S = 1 s
# every P = 10 s; offered λ = 400/s (ρ = 0.5).
# Expected p99 (fluid approximation, FIFO): during a stall the requests pile up (λS = 400); after
# it the queue drains at μ - λ = 400/s, empty S·ρ/(1-ρ) = 1 s after the stall ends. A request that
# arrives t seconds after the stall began leaves at S + λt/μ, so its latency is S - (1-ρ)t: linear
# from S down to 0 over the S/(1-ρ) = 2 s of arrivals from the stall's start. Those are
# S/((1-ρ)P) = 20% of all requests, with latency uniform on (0, S]. The top 1% of all requests is
# the top 5% of them: p99 ≈ S·(1 - 0.01·(1-ρ)P/S) = 0.95 s, plus ~5 ms of service time.
# A closed-loop generator with 2 connections (wrk -c2: 2 of 4 workers busy ≈ 50% load) sends
# nothing while its 2 requests are stuck, so each stall adds only 2 slow samples to ~3,600 fast
# ones: measured that way its p99 would sit near the 5 ms service time (coordinated omission).
# wrk 4.x knows this and patches its histogram after the run (stats_correct in wrk.c): for each
# recorded latency L above the mean per-connection interval i = runtime / (requests/connections)
# it adds synthetic samples L-i, L-2i, ... . That lands its p99 near the stall length, but the
# patch assumes the server is idle again right after the stall (no backlog to drain) and the
# closed loop also offered less than 400/s (it slows down with the server), so it reads low
# against the open-loop expectation. wbload needs no correction: it measures every request from
# its intended send time.
echo
echo "== 3. coordinated omission: 1 s stall every 10 s, 50% load (λ = 400/s, μ = 800/s), 30 s =="
EXPECTED=955
"$REFSERVER" --port 0 --bind 127.0.0.1 --threads 4 --disks 4 --cpu-ms 1 --disk-ms 4 --cpu-mode sleep --seed 1 \
    --stall-every 10 --stall-for 1 > "$WORK/ref.out" &
PIDS+=($!)
RPORT=$(wait_ready "$WORK/ref.out")
"$STALLER" --port 0 --slots 4 --service-ms 5 --stall-every 10 --stall-for 1 > "$WORK/stall.out" &
PIDS+=($!)
SPORT=$(wait_ready "$WORK/stall.out")

J1=$(wbload_json --protocol rpc --target "127.0.0.1:$RPORT" --rate 400 --duration 30 --warmup 1 \
       --connections 16 --max-connections 1000 --arrivals poisson --timeout 5)
J2=$(wbload_json --protocol http --target "http://127.0.0.1:$SPORT/" --rate 400 --duration 30 --warmup 1 \
       --connections 16 --max-connections 1000 --arrivals poisson --timeout 5)
WRKOUT=$(wrk -t1 -c2 -d31s --latency "http://127.0.0.1:$SPORT/")
WRK_P99=$(awk '$1 == "99%" { v = $2; if (v ~ /ms$/) { sub(/ms$/, "", v); print v } else if (v ~ /us$/) { sub(/us$/, "", v); print v / 1000 } else if (v ~ /s$/) { sub(/s$/, "", v); print v * 1000 } }' <<< "$WRKOUT")
WRK_RPS=$(awk '/^Requests\/sec/{print $2}' <<< "$WRKOUT")

printf "%-44s %10s %10s %12s %14s\n" generator p50_ms p99_ms req/s "p99/expected"
for pair in "wbload rpc -> refserver (open loop)|$J1" "wbload http -> stall_http_server (open loop)|$J2"; do
  name=${pair%%|*}; j=${pair#*|}
  p50=$(jq .latency_ms.p50 <<< "$j"); p99=$(jq .latency_ms.p99 <<< "$j"); rps=$(jq .achieved_rate <<< "$j")
  printf "%-44s %10.3f %10.3f %12.1f %14s\n" "$name" "$p50" "$p99" "$rps" "$(ratio "$p99" "$EXPECTED")"
done
WRK_P50=$(awk '$1 == "50%" { v = $2; if (v ~ /ms$/) { sub(/ms$/, "", v); print v } else if (v ~ /us$/) { sub(/us$/, "", v); print v / 1000 } else if (v ~ /s$/) { sub(/s$/, "", v); print v * 1000 } }' <<< "$WRKOUT")
printf "%-44s %10.3f %10.3f %12.1f %14s\n" "wrk -t1 -c2 -> stall_http_server (closed*)" "$WRK_P50" "$WRK_P99" "$WRK_RPS" "$(ratio "$WRK_P99" "$EXPECTED")"
printf "%-44s %10s %10.3f\n" "expected (fluid model, see comment)" "" "$EXPECTED"
echo "* closed loop; wrk's p99 includes its post-hoc coordinated-omission correction (see comment)"
