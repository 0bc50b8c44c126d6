#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Differential test of the day calendars' RFC 5545 rules (libical's
# icalrecur under src/cron/daycal_rule.c) against python3-dateutil's
# rrule: a few hundred seeded random rules, compared day by day over
# 1970-2200 (daycal_rrule_oracle.py tells how). Exit 77 when dateutil is
# missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python3 -c 'import dateutil' 2>/dev/null || exit 77
exec python3 "$here/daycal_rrule_oracle.py" "$SKED_TOOLS_DIR/daycal_driver" \
    "${DAYCAL_SEED:-5545}" "${DAYCAL_RULES:-400}"
