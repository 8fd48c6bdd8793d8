#!/usr/bin/env bash
# `workbench report --html` of a 32-sample surface against the 2 s limit: the full 4 × 8 factorial
# of configs/sim.toml with a hidden deviation in [sim] (disks slower at 4), so that the report also
# has mismatches, a Z-CART tree and probes (two of them run). Wall time of 5 runs, their median, and
# the same with the expectation cache emptied before each run, and for `report --json` (the store
# reads and fits without drawing).
# Usage: bash bench/report/run.sh [--build DIR]   (DIR/controller/workbench; default build)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build
[ "${1:-}" = "--build" ] && build=$2
wb=$build/controller/workbench
work=$(mktemp -d /tmp/wb-bench-report-XXXXXX)
trap 'rm -rf "$work"' EXIT
sed '/^\[\[sim.center\]\]/,/^\[\[model.center\]\]/ s/^service_ms = 15$/service_ms = "15 + 15 * max(0, min(1, {disks} - 3))"/' \
  configs/sim.toml >"$work/sim.toml"
grep -q '{disks} - 3' "$work/sim.toml" || { echo "bench: could not plant the deviation" >&2; exit 1; }
args=(--config "$work/sim.toml" --store "$work/wb.db")
"$wb" map-surface "${args[@]}" --factors disks,threads --points 32 >/dev/null 2>&1
"$wb" agent "${args[@]}" --once --max 2 >/dev/null 2>&1

median_of_5() {  # median_of_5 CMD...: prints "median min max" wall seconds
  local times=()
  for _ in 1 2 3 4 5; do
    local t0 t1
    [ -z "${cold:-}" ] || sqlite3 "$work/wb.db" "DELETE FROM expected_peaks"
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.3f %.3f %.3f\n", a[3], a[1], a[5]}'
}
read -r html_med html_min html_max < <(median_of_5 "$wb" report "${args[@]}" --html "$work/report.html")
read -r json_med json_min json_max < <(median_of_5 "$wb" report "${args[@]}" --json)
# Cold: the expectation's λ* solved again at every sample (a store from before the cache, or
# calibrations added since map-surface ran).
read -r cold_med cold_min cold_max < <(cold=1 median_of_5 "$wb" report "${args[@]}" --html "$work/report.html")
points=$(sqlite3 "$work/wb.db" "SELECT count(*) FROM surface_points")
searches=$(sqlite3 "$work/wb.db" "SELECT count(*) FROM searches")
plots=$(grep -o 'class="plot"' "$work/report.html" | wc -l)
size=$(($(stat -c %s "$work/report.html") / 1024))
echo "report of a ${points}-sample surface: $searches searches, $plots plots, $size KiB of HTML"
printf '%-24s %8s %8s %8s   %s\n' "" "median" "min" "max" "limit 2 s"
printf '%-24s %7.2fs %7.2fs %7.2fs   ratio %.2f\n' "report --html" "$html_med" "$html_min" "$html_max" \
  "$(awk -v m="$html_med" 'BEGIN { print m / 2 }')"
printf '%-24s %7.2fs %7.2fs %7.2fs   ratio %.2f\n' "report --html, cold" "$cold_med" "$cold_min" "$cold_max" \
  "$(awk -v m="$cold_med" 'BEGIN { print m / 2 }')"
printf '%-24s %7.2fs %7.2fs %7.2fs   (no drawing)\n' "report --json" "$json_med" "$json_min" "$json_max"
