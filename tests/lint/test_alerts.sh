#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The alerting rules sked ships (examples/prometheus/sked-alerts.yml,
# docs/alerting.md), checked as their users' Prometheus would: "promtool
# check rules" finds them valid, and "promtool test rules" runs
# tests/lint/alerts_test.yml, series as sked serves them with the alerts
# each must raise. A copy whose "two periods" became four must fail that
# test, so that a test that checked nothing would not pass.
#
# Exits 77 when promtool is not installed. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
rules=$here/../../examples/prometheus/sked-alerts.yml
if ! command -v promtool >/dev/null; then
    echo "SKIP: promtool is not installed (scripts/deps.sh installs it)"
    exit 77
fi
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {
    if [ "$2" = "$3" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        printf 'FAIL %s: got %s, want %s\n' "$1" "$2" "$3"
    fi
}

out=$(promtool check rules "$rules" 2>&1)
check "promtool check rules" "$?" 0
case $out in *"SUCCESS: 5 rules found"*) ;; *) echo "$out" ;; esac
out=$(cd "$here" && promtool test rules alerts_test.yml 2>&1)
rc=$?
[ "$rc" -eq 0 ] || echo "$out"
check "promtool test rules" "$rc" 0

mkdir -p "$tmp/examples/prometheus" "$tmp/tests/lint"
sed 's/> 2 \* sked:schedule_period_seconds/> 4 * sked:schedule_period_seconds/' \
    "$rules" >"$tmp/examples/prometheus/sked-alerts.yml"
cp "$here/alerts_test.yml" "$tmp/tests/lint/"
check "the copy differs" \
    "$(cmp -s "$rules" "$tmp/examples/prometheus/sked-alerts.yml"; echo $?)" 1
(cd "$tmp/tests/lint" && promtool test rules alerts_test.yml >/dev/null 2>&1)
check "a rule of four periods fails the test" "$?" 1

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
