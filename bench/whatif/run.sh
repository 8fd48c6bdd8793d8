#!/usr/bin/env bash
# Benchmark of the expectation model on refserver: `workbench whatif` predicts λ* at (threads, disks)
# settings of configs/demo.toml that were never measured; `workbench peak` then measures each
# (target 95/90). First `workbench model calibrate` measures the demands once, at the config's
# default sample (threads=8, disks=2), which is not one of the settings compared. Prints, per
# setting: the model's λ* (R(λ*) = R_sat) and its peak-rate region (the loads whose R lies within
# R_sat ± width: a search may claim any of them), the measured λ*, the error, whether the measured
# λ* lies in the model's region, and the loads the measurement could not rule out as the peak.
# Where R(λ) is flat (one or two disks) the region itself spans more than ±10%, so no single search
# can pin λ* to 10% there; with four disks it spans about -8%/+5%. Goal: within 10% (seed 001:
# < 15%).
#   bash bench/whatif/run.sh [BUILD_DIR] [SETTINGS...]      settings as threads,disks (default 16,4 4,4 2,4)
# Needs jq (bash dev/setup.sh bench). Runs on a copy of demo.toml on a free port, in a fresh
# store, so nothing else on the machine is touched; each search takes 1-4 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
settings=("$@")
[ ${#settings[@]} -gt 0 ] || settings=(16,4 4,4 2,4)
wb="$build/controller/workbench"
work=$(mktemp -d /tmp/wb_bench_whatif.XXXXXX)
trap 'rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/configs"
ln -s "$PWD/workloads" "$work/workloads"
sed "s/^port = 7411/port = $port/" configs/demo.toml > "$work/configs/demo.toml"
config="$work/configs/demo.toml"
store="$work/whatif.db"

"$wb" model calibrate --config "$config" --store "$store" --set mix=db_tp,cpus=0-1 2>&1 | sed 's/^/# /'

printf '%-20s %10s %16s %12s %8s %7s %14s %7s\n' "sample (mix=db_tp)" "whatif λ*" "model region" "measured λ*" \
  "error" "inside" "could be peak" "cost s"
for s in "${settings[@]}"; do
  threads=${s%,*} disks=${s#*,}
  set_arg="mix=db_tp,cpus=0-1,threads=$threads,disks=$disks"
  w=$("$wb" whatif --config "$config" --store "$store" --set "$set_arg" --json)
  predicted=$(jq '.answers[] | select(.source == "expectation") | .value' <<<"$w")
  lo=$(jq '.region_low' <<<"$w") hi=$(jq '.region_high' <<<"$w")
  region=$(printf '[%.0f, %.0f]' "$lo" "$hi")
  measured=$("$wb" peak --config "$config" --store "$store" --set "$set_arg" --target 95/90 --json || true)
  peak=$(jq '.peak_rate // empty' <<<"$measured")
  cost=$(jq '.cost_s' <<<"$measured")
  if [ -z "$peak" ]; then
    printf '%-20s %10.1f %16s %12s %8s %7s %14s %7.0f  (%s)\n' "threads=$threads,disks=$disks" "$predicted" \
      "$region" "-" "-" "-" "-" "$cost" "$(jq -r '.status' <<<"$measured")"
    continue
  fi
  interval=$(jq -r '"[\(.peak_interval.low | floor), \(.peak_interval.high | ceil)]"' <<<"$measured")
  inside=$(jq -n --argjson p "$peak" --argjson lo "$lo" --argjson hi "$hi" 'if $p >= $lo and $p <= $hi then "yes" else "no" end' -r)
  printf '%-20s %10.1f %16s %12.1f %7.1f%% %7s %14s %7.0f\n' "threads=$threads,disks=$disks" "$predicted" \
    "$region" "$peak" "$(jq -n "($predicted - $peak) / $peak * 100")" "$inside" "$interval" "$cost"
done
