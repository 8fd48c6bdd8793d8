#!/usr/bin/env bash
# Runs every libFuzzer harness of a WB_FUZZ=ON build over its committed seed corpus.
#   bash fuzz/fuzz.sh BUILD_DIR WORK_DIR [libFuzzer flags...]
# e.g. -max_total_time=10 (the CI smoke, dev/setup.sh fuzz) or -runs=10000000 (bench/fuzz/run.sh).
# New inputs go to WORK_DIR/<name>/corpus, never into fuzz/corpus/; a crashing input is saved as
# WORK_DIR/<name>/crash-*. Each harness's log is WORK_DIR/<name>/log and its last line (libFuzzer's
# "Done N runs in S second(s)") is echoed. FUZZERS="mix codec" runs only some. Stops at the
# first harness that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1
work=$2
shift 2
declare -A dict=([config]=toml [mix]=toml [expr]=expr [result]=json [histogram]=json [stage_stats]=json
                 [codec]=codec [generator]=json)
for name in ${FUZZERS:-config expr mix result histogram stage_stats codec generator}; do
  out="$work/$name"
  mkdir -p "$out/corpus"
  start=$(date +%s)
  # -timeout: one input taking longer is a hang; -rss_limit_mb: an allocation past it is a finding.
  if ! "$build/fuzz/${name}_fuzzer" -dict="fuzz/${dict[$name]}.dict" -artifact_prefix="$out/" \
      -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 "$@" "$out/corpus" "fuzz/corpus/$name" \
      >"$out/log" 2>&1; then
    tail -n 40 "$out/log" >&2
    echo "fuzz: $name failed; the input is in $out/ (log: $out/log)" >&2
    exit 1
  fi
  echo "fuzz: $name: $(grep -E '^Done [0-9]+ runs' "$out/log" | tail -n 1) (wall $(( $(date +%s) - start )) s)"
done
