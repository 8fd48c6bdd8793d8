#!/usr/bin/env bash
# workbench set-up for a fresh Debian 12 machine, as root:
#   bash dev/setup.sh demo    install, build, run the demo peak search
#   bash dev/setup.sh test    install, build, run every test (what CI runs): the unit tests under
#                             AddressSanitizer + UndefinedBehaviorSanitizer, the others plain
#   bash dev/setup.sh asan    only the unit tests under the sanitizers
#   bash dev/setup.sh lint    clang-format and clang-tidy checks (lint --format: only the first)
#   bash dev/setup.sh fuzz    build the libFuzzer harnesses (fuzz/) and run each for 10 s
#   bash dev/setup.sh bench   also install the benchmarks' peers (wrk, jq, time, scikit-learn)
set -euo pipefail
cd "$(dirname "$0")/.."

# Build tools and libraries (DESIGN.md "Dependencies"), then the real servers and tools the tests
# and configs start.
build_packages=(
  g++ cmake ninja-build pkg-config
  libssh-dev libboost-dev libsqlite3-dev libcli11-dev catch2 libtomlplusplus-dev
  nlohmann-json3-dev libeigen3-dev libfmt-dev zlib1g-dev
  clang-format clang-tidy
)
run_packages=(
  sqlite3 openssh-server openssh-client nginx-light redis-server memcached fio procps iproute2
  postgresql gnuplot-nox graphviz
)
# What only the tests need: the HTML report is checked in a real browser (tests/report/).
test_packages=(python3 python3-selenium python3-pil chromium chromium-driver)
# The peers the benchmarks compare with (bench/): not needed to build or test.
bench_packages=(wrk jq time python3-sklearn)
# libFuzzer comes with clang: the compiler and its runtime libraries (libclang_rt.fuzzer).
fuzz_packages=(clang libclang-rt-14-dev)

install_packages() {  # install_packages PACKAGE...: those not installed yet
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    # The lock timeout: another apt run (this script's, beside a build) finishes first.
    apt-get -o DPkg::Lock::Timeout=900 update -qq
    apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

build() {  # build DIR [cmake args...]   (WB_TARGET="T..." builds only those targets)
  local dir=$1
  shift
  # From scratch: the libraries as unity sources (a third of the CPU), line tables only (-g1).
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWB_UNITY=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" "$@" >/dev/null
  # shellcheck disable=SC2086  # WB_TARGET is a list of target names
  cmake --build "$dir" -j "$(nproc)" ${WB_TARGET:+--target $WB_TARGET}
}

# The unit tests (logic, parsers, the simulator, whole searches on the simulated testbed), and only
# what they need. Tests that time real servers are skewed by the sanitizers' slowdown and run in the
# plain build.
asan_build() {
  # -O1 -g1 (line tables): the instrumented build at -O2 -g took ~35 min on CI's 2 cores.
  WB_TARGET=wb_unit_tests build build-asan -DWB_SANITIZE=ON -DWB_BENCH=OFF \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
}

asan_run() {
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure --timeout 1800 -L unit -j "$(nproc)")
}

case "${1:-}" in
  demo)
    install_packages "${build_packages[@]}" "${run_packages[@]}"
    build build
    config=configs/demo.toml
    [ -f "$config" ] || config=configs/sim.toml
    exec build/controller/workbench peak --config "$config" --target 95/90
    ;;
  test)
    # The servers and the browser install beside the builds (none of them is needed to build).
    install_packages "${build_packages[@]}"
    packages_log=$(mktemp /tmp/wb-packages-XXXXXX.log)
    install_packages "${run_packages[@]}" "${test_packages[@]}" >"$packages_log" 2>&1 &
    packages=$!
    # Every test once: the unit tests under the sanitizers, the others (and the programs and
    # benchmarks) in the plain build. Unbuilt unit tests show there as *_NOT_BUILT: not run.
    # The sanitizer build and its unit tests run at nice 19 beside the plain build, the simulations
    # and the tests of processes' behaviour (taking what CPU they leave, ahead of .ci/run's
    # SCHED_IDLE clang-tidy, which at the same class took half of it); the tests that time real
    # servers wait for them to end: even idle-class work beside those moved the demo's λ* 16 %
    # (CONTRIBUTING.md, "Test").
    asan_log=$(mktemp /tmp/wb-asan-build-XXXXXX.log)
    asan_tests_log=$(mktemp /tmp/wb-asan-tests-XXXXXX.log)
    # Its own process group (job control on while it starts), so it can be stopped as a whole.
    set -m
    (
      renice -n 19 "$BASHPID" >/dev/null
      asan_build >"$asan_log" 2>&1 && asan_run >"$asan_tests_log" 2>&1
    ) &
    asan=$!
    set +m
    # WB_PAUSE_GROUPS: process groups of the caller's to pause while the timed tests run (.ci/run's
    # clang-tidy). Each kill may find its group gone, and set -e holds in the trap: a bare failing
    # kill there would turn a passing run's exit status into 1.
    pause_groups=(${WB_PAUSE_GROUPS:-})
    trap 'kill -- -"$asan" 2>/dev/null || true
          for g in "${pause_groups[@]}"; do kill -CONT -- -"$g" 2>/dev/null || true; done' EXIT
    WB_TARGET="wb_other_tests wb_benchmarks workbench refserver wbload" build build
    if ! wait "$packages"; then
      cat "$packages_log"
      exit 1
    fi
    rm -f "$packages_log"
    # Separate runs, so that no kind waits on another: the simulations and the CLI tests on the
    # simulated testbed two at a time, the tests of real processes' behaviour (label process) two
    # at a time, then, once the sanitizer run has ended, the tests that time real servers alone.
    status=0
    (cd build && ctest --output-on-failure --timeout 900 -j "$(nproc)" -L 'statistics|sim' -LE unit \
      -E '_NOT_BUILT') || status=$?
    (cd build && ctest --output-on-failure --timeout 900 -j "$(nproc)" -L process -E '_NOT_BUILT') || status=$?
    asan_status=0
    wait "$asan" || asan_status=$?
    if [ ! -s "$asan_tests_log" ]; then  # the build failed: its errors
      cat "$asan_log"
      exit 1
    fi
    tail -n 3 "$asan_log"
    cat "$asan_tests_log"
    rm -f "$asan_log" "$asan_tests_log"
    [ "$asan_status" -eq 0 ] || status=$asan_status
    (cd build && ctest --output-on-failure --timeout 900 -LE 'unit|statistics|sim|process|timed' \
      -E '_NOT_BUILT') || status=$?
    # A peak held against an analytic figure: nothing beside it, not even the linter.
    for g in "${pause_groups[@]}"; do kill -STOP -- -"$g" 2>/dev/null || true; done
    (cd build && ctest --output-on-failure --timeout 1800 -L timed -E '_NOT_BUILT') || status=$?
    for g in "${pause_groups[@]}"; do kill -CONT -- -"$g" 2>/dev/null || true; done
    exit "$status"
    ;;
  asan)
    install_packages "${build_packages[@]}" "${run_packages[@]}"
    asan_build
    asan_run
    ;;
  lint)
    install_packages "${build_packages[@]}"
    bash dev/lint.sh "${2:-all}"
    ;;
  fuzz)
    install_packages "${build_packages[@]}" "${fuzz_packages[@]}"
    # Only the harnesses and the sources they call, instrumented (fuzz/CMakeLists.txt). Warnings
    # are the g++ builds' business: clang's own set must not fail this one.
    WB_TARGET=wb_fuzzers build build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DWB_FUZZ=ON -DWB_WERROR=OFF \
      -DBUILD_TESTING=OFF -DWB_BENCH=OFF
    # A smoke: every harness over its seeds plus 5 s of mutation. The long runs: bench/fuzz/run.sh.
    work=$(mktemp -d /tmp/wb-fuzz-smoke-XXXXXX)
    bash fuzz/fuzz.sh build-fuzz "$work" -seed=1 -max_total_time=5
    rm -rf "$work"
    ;;
  bench)
    install_packages "${build_packages[@]}" "${run_packages[@]}" "${bench_packages[@]}"
    build build
    ;;
  *)
    echo "usage: bash dev/setup.sh demo|test|asan|lint|fuzz|bench" >&2
    exit 2
    ;;
esac
