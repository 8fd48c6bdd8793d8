#!/usr/bin/env bash
# The long fuzzing runs behind bench/fuzz/RESULTS.txt: every libFuzzer harness of fuzz/ for
# 10 million executions (or RUNS=N), each capped at MAX_S seconds (default 2700), one at a time
# under `nice -n 19`. Builds the harnesses first (clang, -DWB_FUZZ=ON) in BUILD_DIR.
#   bash bench/fuzz/run.sh [BUILD_DIR] [WORK_DIR]      (defaults build-fuzz, /tmp/wb-fuzz-long)
#   FUZZERS="codec mix" bash bench/fuzz/run.sh          (some harnesses only)
# Per harness it prints libFuzzer's last status line (executions, cov, ft, corpus size) and its
# final stats (executions, exec/s, peak RSS); the grown corpora stay in WORK_DIR/<name>/corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz}
work=${2:-/tmp/wb-fuzz-long}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DWB_FUZZ=ON \
  -DWB_WERROR=OFF -DBUILD_TESTING=OFF -DWB_BENCH=OFF >/dev/null
cmake --build "$build" -j 2 --target wb_fuzzers
for name in ${FUZZERS:-config expr mix result histogram stage_stats codec}; do
  FUZZERS=$name nice -n 19 bash fuzz/fuzz.sh "$build" "$work" -seed=1 -runs="${RUNS:-10000000}" \
    -max_total_time="${MAX_S:-2700}"
  log="$work/$name/log"
  echo "  last status: $(grep -E '^#[0-9]+' "$log" | tail -n 1)"
  echo "  final stats: $(grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" |
    tr '\n' ' ')"
done
