#!/usr/bin/env bash
# Benchmark for issue 7's refserver acceptance: `workbench whatif` predicts λ* at (threads, disks)
# settings of configs/demo.toml that were never measured; `workbench peak` then measures each
# (target 95/90). Prints both side by side, the model's error, and the loads the measurement could
# not rule out as the peak (`peak_interval`): where R(λ) is flat (one disk) the peak-rate region
# spans a wide range of loads and the search may claim any of them. Goal: within 10% (seed 001:
# < 15%).
#   bash bench/whatif/run.sh [BUILD_DIR] [SETTINGS...]      settings as threads,disks (default 4,2 16,4 8,1)
# Needs jq (bash dev/setup.sh bench). Runs on a copy of demo.toml on a free port, in a fresh
# store, so nothing else on the machine is touched; each search takes 1-3 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
settings=("$@")
[ ${#settings[@]} -gt 0 ] || settings=(4,2 16,4 8,1)
wb="$build/controller/workbench"
work=$(mktemp -d /tmp/wb_bench_whatif.XXXXXX)
trap 'rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/configs"
ln -s "$PWD/workloads" "$work/workloads"
sed "s/^port = 7411/port = $port/" configs/demo.toml > "$work/configs/demo.toml"
config="$work/configs/demo.toml"
store="$work/whatif.db"

printf '%-22s %12s %12s %10s %18s %9s\n' "sample (mix=db_tp)" "whatif λ*" "measured λ*" "error" "could be the peak" "cost s"
for s in "${settings[@]}"; do
  threads=${s%,*} disks=${s#*,}
  set_arg="mix=db_tp,cpus=0-1,threads=$threads,disks=$disks"
  predicted=$("$wb" whatif --config "$config" --store "$store" --set "$set_arg" --json |
    jq '.answers[] | select(.source == "expectation") | .value')
  measured=$("$wb" peak --config "$config" --store "$store" --set "$set_arg" --target 95/90 --json || true)
  peak=$(jq '.peak_rate // empty' <<<"$measured")
  cost=$(jq '.cost_s' <<<"$measured")
  if [ -z "$peak" ]; then
    printf '%-22s %12.1f %12s %10s %9.0f  (%s)\n' "threads=$threads,disks=$disks" "$predicted" "-" "-" "$cost" \
      "$(jq -r '.status' <<<"$measured")"
    continue
  fi
  interval=$(jq -r '"[\(.peak_interval.low | floor), \(.peak_interval.high | ceil)]"' <<<"$measured")
  printf '%-22s %12.1f %12.1f %9.1f%% %18s %9.0f\n' "threads=$threads,disks=$disks" "$predicted" "$peak" \
    "$(jq -n "($predicted - $peak) / $peak * 100")" "$interval" "$cost"
done
