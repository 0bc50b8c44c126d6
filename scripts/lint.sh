#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Style check: clang-format must leave every C file unchanged, and every
# #include of src/ and cmd/ must keep to the layers (tests/lint/layers.py).
# Then, as a report rather than a gate, the 20 longest functions of src/
# and cmd/.
set -euo pipefail
cd "$(dirname "$0")/.."

files=$(git ls-files '*.c' '*.h')
bad=0
for f in $files; do
    if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
        echo "lint: $f is not clang-formatted (run clang-format -i $f)"
        bad=1
    fi
done

python3 tests/lint/layers.py || bad=1

echo "The 20 longest functions (lines):"
# A function starts at a line that is "{" alone after its signature and
# ends at the next "}" alone at column 0.
for f in $(git ls-files 'src/*.c' 'cmd/*.c'); do
    awk -v file="$f" '
        /^[A-Za-z].*\(/ { sig = $0; sigline = NR }
        /^\{$/ { start = NR; name = sig }
        /^\}$/ && start { printf "%5d  %s:%d  %s\n", NR - start + 1, file, sigline, name; start = 0 }
    ' "$f"
done | sort -rn | sed -n 1,20p
exit $bad
