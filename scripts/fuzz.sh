#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run every libFuzzer target of a fuzz build for a bounded time each,
# starting from its corpus in fuzz/corpus/<target>/ (and with the tokens of
# fuzz/<target>.dict when there is one). A crash stops the run
# and leaves the input in fuzz/ (crash-*), to be fixed and added to the
# corpus. Usage: scripts/fuzz.sh BUILD_DIR SECONDS_PER_TARGET
set -euo pipefail

build=${1:?usage: fuzz.sh BUILD_DIR SECONDS}
seconds=${2:-60}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

status=0
for bin in "$build"/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    name=$(basename "$bin")
    target=${name#fuzz_}
    mkdir -p "$work/$target"
    cp -r "$here/fuzz/corpus/$target/." "$work/$target/" 2>/dev/null || true
    dict=()
    [ -f "$here/fuzz/$target.dict" ] && dict=(-dict="$here/fuzz/$target.dict")
    printf 'fuzz %-10s %ss ... ' "$target" "$seconds"
    if LSAN_OPTIONS="suppressions=$here/fuzz/lsan.supp" "$bin" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$here/fuzz/" -print_final_stats=1 \
        "$work/$target" >"$work/$target.log" 2>&1; then
        runs=$(grep -m1 'stat::number_of_executed_units' "$work/$target.log" |
            awk '{print $2}')
        echo "clean (${runs:-?} runs)"
    else
        echo "FAILED"
        tail -40 "$work/$target.log"
        status=1
    fi
done
exit $status
