#!/usr/bin/env bash
# Lists the longest function bodies in C++ sources, for the "no library function over ~60 lines"
# rule of CONTRIBUTING.md. A function is a definition whose signature starts in column 0 (our format
# puts every namespace-scope definition there) and ends at the next "}" in column 0; lambdas and in-class
# member bodies count toward the function around them.
# Usage: dev/function_sizes.sh [-n TOP] [folder...]   (default: the library folders)
set -euo pipefail
cd "$(dirname "$0")/.."
source dev/report_args.sh
report_args "$@"
find "${folders[@]}" -name '*.cpp' 2>/dev/null | sort | xargs awk '
  FNR == 1 { start = 0; pending = 0 }
  start == 0 && pending == 0 && /^[A-Za-z_].*[(]/ && !/^(namespace|struct|class|enum|union|extern|using|template)/ {
    pending = FNR; name = $0; sub(/[(].*/, "", name); n = split(name, w, /[ *&:]+/); name = w[n] }
  pending > 0 && /[;}][ ]*$/ { pending = 0; next }
  pending > 0 && /[{][ ]*$/ { start = pending; pending = 0; next }
  start > 0 && /^}/ { printf "%5d  %s:%d  %s\n", FNR - start - 1, FILENAME, start, name; start = 0 }
' | sort -rn | head -n "$top"
