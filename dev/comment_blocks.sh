#!/usr/bin/env bash
# Reports comment blocks in C++ sources: the longest blocks, the number of blocks longer than
# three lines per folder, and tracker references ("[issue N]") that the style rules forbid.
# A block is a run of consecutive lines holding only a // comment (or lines of a /* */ comment);
# comments after code on the same line are not counted.
# Usage: dev/comment_blocks.sh [-n TOP] [folder...]   (default: the library folders)
set -euo pipefail
cd "$(dirname "$0")/.."
source dev/report_args.sh
report_args "$@"

files=$(find "${folders[@]}" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) | sort)
[[ -n "$files" ]] || { echo "no C++ files under: ${folders[*]}" >&2; exit 2; }

# One line per block: <lines> <file>:<first line>
blocks=$(echo "$files" | xargs awk '
  function flush() { if (n > 0) print n, file ":" start; n = 0 }
  FNR == 1 { flush(); inblock = 0; file = FILENAME }
  {
    line = $0
    sub(/^[ \t]+/, "", line)
    if (inblock) {
      n++
      if (index(line, "*/") > 0) inblock = 0
      next
    }
    if (substr(line, 1, 2) == "//" || substr(line, 1, 2) == "/*") {
      if (n == 0) start = FNR
      n++
      if (substr(line, 1, 2) == "/*" && index(substr(line, 3), "*/") == 0) inblock = 1
      next
    }
    flush()
  }
  END { flush() }
')

echo "== ${top} longest comment blocks (lines  file:line)"
echo "$blocks" | sort -k1,1nr -k2,2 | head -n "$top"

echo
echo "== comment blocks longer than 3 lines, per folder"
total=0
for f in "${folders[@]}"; do
  c=$(echo "$blocks" | awk -v dir="$f/" '$1 > 3 && index($2, dir) == 1' | wc -l)
  total=$((total + c))
  printf '%-12s %4d\n' "$f" "$c"
done
printf '%-12s %4d\n' total "$total"

echo
echo "== tracker references ([issue N] or 'issue N' in a comment)"
echo "$files" | xargs grep -nE '\[issue [0-9]|//.*\bissues? [0-9]' | grep -v 'upstream issue' || true
