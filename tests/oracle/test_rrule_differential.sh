#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Differential test of sked's RRULE core (src/cron/rrule*.c) against
# python3-dateutil's rrule, on naive datetimes (floating wall time).
#
# gen_rrules.py writes seeded random rules over every FREQ with INTERVAL,
# BYMONTH, BYWEEKNO, BYYEARDAY, BYMONTHDAY, BYDAY with ordinals,
# BYHOUR/BYMINUTE/BYSECOND, BYSETPOS, WKST, COUNT, UNTIL and DTSTART (or
# none: the default start floored to the rule's resolution), each asked
# from a few after and before points, plus invalid mutations with the
# byte sked must name; dateutil answers; rrule_driver prints sked's;
# compare_rrule.py counts agreements and prints every disagreement. The
# test fails on any. sked refuses, by design, rules libical 3.0 expands
# wrongly or too slowly (BYSETPOS below DAILY, SECONDLY with month or
# year days, MINUTELY with BYYEARDAY); the generator makes those invalid.
#
# Environment: SKED_TOOLS_DIR (holding rrule_driver), SKED_SOURCE_DIR;
# SKED_ORACLE_SEED and SKED_ORACLE_CASES change the seed and the count.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=${SKED_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
driver=${SKED_TOOLS_DIR:?SKED_TOOLS_DIR must name the build directory}/rrule_driver
oracle_dir=$source_dir/tests/oracle
seed=${SKED_ORACLE_SEED:-5545}
count=${SKED_ORACLE_CASES:-300}
# Debian's interpreter, the one python3-dateutil is installed for.
python=/usr/bin/python3

skip() {
    echo "SKIP: $*"
    exit 77
}

[ -x "$driver" ] || skip "no rrule_driver in $SKED_TOOLS_DIR"
"$python" -c 'import dateutil.rrule' 2>/dev/null || skip "python3-dateutil missing"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" "$oracle_dir/gen_rrules.py" --seed "$seed" --valid "$count" \
    >"$work/cases.tsv"
echo "seed $seed"
"$python" "$oracle_dir/compare_rrule.py" "$work/cases.tsv" "$driver"
