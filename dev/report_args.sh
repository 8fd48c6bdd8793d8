# shellcheck shell=bash disable=SC2034
# Sourced by the dev/ reports that take [-n TOP] [folder...]: one parser, so that they agree on the
# option and on which folders are "the library folders".
# report_args "$@" sets `top` (default 15) and the array `folders` (default: the library folders).
report_args() {
  top=15
  if [[ "${1:-}" == "-n" ]]; then
    top=$2
    shift 2
  fi
  folders=("$@")
  [[ ${#folders[@]} -gt 0 ]] || folders=(core policies rsm models store harness workloads sut experiment controller)
}
