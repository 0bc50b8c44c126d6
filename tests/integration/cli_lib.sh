# SPDX-License-Identifier: MIT
# The harness the CLI test scripts share; sourced, not run. It reads the
# environment CTest sets (SKED_BIN, SKED_SOURCE_DIR), pins the zones to
# tests/data/zoneinfo when present, makes a scratch directory removed at
# exit, and keeps the pass/fail counts. Each script adds its own
# assertions on top of run, pass and fail, and ends with finish.
#
# run ARGS...   runs sked; sets rc, args, and $tmp/out, $tmp/err
# pass          counts a passed check
# fail WHY      counts a failed check named $name and shows the command
# finish        prints "N passed, M failed" and returns non-zero on failures

bin=${SKED_BIN:?SKED_BIN is the sked binary}
src=${SKED_SOURCE_DIR:?SKED_SOURCE_DIR is the source tree}
py=/usr/bin/python3
if [ -f "$src/tests/data/zoneinfo/Europe/Paris" ]; then
    export TZDIR=$src/tests/data/zoneinfo
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

fail() {
    failed=$((failed + 1))
    printf 'FAIL %s: %s\n' "$name" "$1"
    printf '  command: sked'
    printf ' %q' "${args[@]}"
    printf '\n  exit %s\n  stdout: %s\n  stderr: %s\n' "$rc" \
        "$(head -c 3000 "$tmp/out")" "$(head -c 2000 "$tmp/err")"
}

pass() { passed=$((passed + 1)); }

run() {
    args=("$@")
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
