#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Differential test: sked's zones against glibc's localtime_r on every
# zone of the system's tz database (tests/tools/tz_vs_glibc.c), then on a
# "slim" build of the same database made with zic when zic is present.
# Slim files stop at the last rule change (America/New_York at 2007), so
# the POSIX TZ footer decides most instants: this checks the footer rules
# where the system's "fat" files (tables up to 2037) do not reach.
set -euo pipefail

PATH="$PATH:/usr/sbin:/sbin"
tool="${SKED_TOOLS_DIR:?SKED_TOOLS_DIR not set}/tz_vs_glibc"
zoneinfo="${TZDIR:-/usr/share/zoneinfo}"

if [[ ! -d "$zoneinfo" ]]; then
    echo "SKIP: no zoneinfo directory at $zoneinfo"
    exit 0
fi
"$tool" "$zoneinfo" 3000

if command -v zic >/dev/null && [[ -f "$zoneinfo/tzdata.zi" ]]; then
    slim="$(mktemp -d)"
    trap 'rm -rf "$slim"' EXIT
    zic -b slim -d "$slim" "$zoneinfo/tzdata.zi"
    "$tool" "$slim" 1000
fi
