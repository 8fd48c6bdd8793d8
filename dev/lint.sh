#!/usr/bin/env bash
# Format and lint checks (CI runs them; run them before you commit).
#   clang-format: every tracked C++ file must be formatted (fix: bash dev/lint.sh --fix)
#   clang-tidy:   the checks in .clang-tidy, warnings as errors, over the library sources
#   bash dev/lint.sh [--format | --tidy]   only the format checks, or only clang-tidy
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
mode=${1:-all}
if [ "$mode" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if [ "$mode" != "--tidy" ]; then
  clang-format --dry-run --Werror "${files[@]}"
  echo "lint: clang-format ok (${#files[@]} files)"
  # ctest splits a test list at ';': a Catch2 test name holding one runs as several broken tests.
  # (perl: Debian's perl-base, always installed; the name may start on the line after TEST_CASE.)
  mapfile -t tests < <(git ls-files 'tests/*.cpp')
  bad=$(perl -0777 -ne 'while (/TEST_CASE\(\s*"([^"]*)"/g) { print "$ARGV: $1\n" if index($1, ";") >= 0 }' \
    "${tests[@]}")
  if [ -n "$bad" ]; then
    printf '%s\n' "$bad" >&2
    echo "lint: a TEST_CASE name above contains ';', which ctest splits into several tests" >&2
    exit 1
  fi
fi
[ "$mode" = "--format" ] && exit 0
# Over the libraries' unity sources (as CI compiles them): the heavy headers (Eigen, Boost,
# nlohmann) are parsed once per unit, not once per file, which halves the linter's CPU
# (docs/decisions.md#lint-unity). The sources they include count as headers, so the header filter
# names every folder of this checkout; the programs' own sources are checked one by one.
cmake -S . -B build-lint -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DBUILD_TESTING=OFF -DWB_BENCH=OFF \
  -DWB_UNITY=ON >/dev/null
folders='core|policies|rsm|models|store|harness|workloads|sut|experiment|report|controller'
mapfile -t sources < <(sed -n 's/^ *"file": "\(.*\)",\{0,1\}$/\1/p' build-lint/compile_commands.json |
  grep -E "^$PWD/($folders)/|/Unity/unity_[0-9]+_cxx\.cxx$")
# TIDY_JOBS: parallel clang-tidy processes (default: one per core).
printf '%s\n' "${sources[@]}" | xargs -P "${TIDY_JOBS:-$(nproc)}" -n 1 clang-tidy -p build-lint --quiet \
  --config-file="$PWD/.clang-tidy" --checks=-bugprone-suspicious-include --header-filter="^$PWD/($folders)/" \
  2>/dev/null
echo "lint: clang-tidy ok (${#sources[@]} files)"
