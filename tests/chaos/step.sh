#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The step (and compensation) command of the chaos workflows: it works for
# a while, then succeeds or fails, and writes its own ledger, one line when
# it starts and one when it ends, so the checker can compare what really
# ran with what the database recorded.
#
#   step.sh KIND MIN_MS MAX_MS FAIL_PCT
#
# KIND is `step` or `comp`. The duration (MIN_MS to MAX_MS) and whether
# the attempt fails (FAIL_PCT in 100) are drawn from a hash of CHAOS_SEED,
# the run, the step, KIND and the attempt, so every execution of the same
# attempt does the same. Ledger lines (tab-separated, appended to
# $CHAOS_LEDGER with one write each, so lines of processes running side by
# side never mix):
#
#   start RUN STEP KIND ATTEMPT TIME_US PID SERVER_PID PLANNED_MS
#   end   RUN STEP KIND ATTEMPT TIME_US PID SERVER_PID EXIT_STATUS
#
# SERVER_PID is the parent: the server that started the command. A SIGTERM
# (a cancel, a timeout, a server stopping) ends it with status 143 and an
# end line; a SIGKILL leaves no end line.
set -u
export LC_ALL=C
kind=$1 min_ms=$2 max_ms=$3 fail_pct=$4
ledger=${CHAOS_LEDGER:?CHAOS_LEDGER names the ledger file}

line() {
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$SKED_RUN_ID" \
        "$SKED_STEP" "$kind" "$SKED_ATTEMPT" "${EPOCHREALTIME/./}" "$$" \
        "$PPID" "$2" >>"$ledger"
}

h=$(printf '%s' "${CHAOS_SEED:-0}/$SKED_RUN_ID/$SKED_STEP/$kind/$SKED_ATTEMPT" |
    cksum)
h=${h%% *}
ms=$((min_ms + h % (max_ms - min_ms + 1)))
fails=$(((h / 7919) % 100 < fail_pct))

sleeper=
trap 'line end 143; [ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null; exit 143' \
    TERM INT
line start "$ms"
sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))" &
sleeper=$!
wait "$sleeper"
if [ "$fails" = 1 ]; then
    line end 1
    exit 1
fi
line end 0
