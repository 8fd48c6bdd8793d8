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
cmake -S . -B build-lint -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DBUILD_TESTING=OFF >/dev/null
mapfile -t sources < <(git ls-files 'core/*.cpp' 'policies/*.cpp' 'store/*.cpp' 'rsm/*.cpp' 'models/*.cpp' \
  'experiment/*.cpp' 'controller/*.cpp' 'harness/*.cpp' 'harness/sim/*.cpp' 'workloads/*.cpp' 'sut/*.cpp')
# TIDY_JOBS: parallel clang-tidy processes (default: one per core).
printf '%s\n' "${sources[@]}" | xargs -P "${TIDY_JOBS:-$(nproc)}" -n 4 clang-tidy -p build-lint --quiet 2>/dev/null
echo "lint: clang-tidy ok (${#sources[@]} files)"
