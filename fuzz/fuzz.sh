#!/usr/bin/env bash
# Runs every libFuzzer harness of a WB_FUZZ=ON build over its committed seed corpus.
#   bash fuzz/fuzz.sh BUILD_DIR WORK_DIR [libFuzzer flags...]
# e.g. -max_total_time=10 (the CI smoke, dev/setup.sh fuzz) or -runs=10000000 (bench/fuzz/run.sh).
# New inputs go to WORK_DIR/<name>/corpus, never into fuzz/corpus/; a crashing input is saved as
# WORK_DIR/<name>/crash-*. Each harness's log is WORK_DIR/<name>/log and its last line (libFuzzer's
# "Done N runs in S second(s)") is echoed. FUZZERS="mix codec" runs only some; FUZZ_JOBS of them
# run at once (default: one per core). Fails if any harness fails, after the running ones end.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1
work=$2
shift 2
declare -A dict=([config]=toml [mix]=toml [expr]=expr [result]=json [histogram]=json [stage_stats]=json
                 [codec]=codec [generator]=json [storage]=json)
fuzz_one() {
  local name=$1 out="$work/$1" start
  shift
  mkdir -p "$out/corpus"
  start=$(date +%s)
  # -timeout: one input taking longer is a hang; -rss_limit_mb: an allocation past it is a finding.
  if ! "$build/fuzz/${name}_fuzzer" -dict="fuzz/${dict[$name]}.dict" -artifact_prefix="$out/" \
      -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 "$@" "$out/corpus" "fuzz/corpus/$name" \
      >"$out/log" 2>&1; then
    tail -n 40 "$out/log" >&2
    echo "fuzz: $name failed; the input is in $out/ (log: $out/log)" >&2
    return 1
  fi
  echo "fuzz: $name: $(grep -E '^Done [0-9]+ runs' "$out/log" | tail -n 1) (wall $(( $(date +%s) - start )) s)"
}
# Each harness is one process on one core: the smoke's wall time is divided by the cores.
jobs=${FUZZ_JOBS:-$(nproc)}
running=0
failed=0
for name in ${FUZZERS:-config expr mix result histogram stage_stats codec generator storage}; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  [ "$failed" -eq 0 ] || break
  fuzz_one "$name" "$@" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit "$failed"
