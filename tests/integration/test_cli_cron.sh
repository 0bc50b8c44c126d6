#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# "sked cron next|explain|validate" and the global commands, run as a user
# would: exact output for SPEC 2.2's examples and DST changes in several
# zones, and for every kind of bad input exactly one line on stderr naming
# the field and byte, with exit 1 (bad value) or 2 (usage).
#
# Zones come from tests/data/zoneinfo when present (pinned), else from the
# system. Env: SKED_BIN (the binary), SKED_SOURCE_DIR. Ends with
# "N passed, M failed" and fails when M > 0.
set -u

. "$(dirname "$0")/cli_lib.sh"

# ok NAME EXPECTED_STDOUT ARGS...: exit 0, exactly that output, no stderr.
ok() {
    name=$1 want=$2
    shift 2
    run "$@"
    if [ "$rc" -ne 0 ]; then
        fail "exit $rc, want 0"
    elif [ "$(cat "$tmp/out")" != "$want" ]; then
        fail "stdout differs; want: $want"
    elif [ -s "$tmp/err" ]; then
        fail "unexpected stderr"
    else
        pass
    fi
}

# err NAME EXIT EXPECTED_STDERR_LINE ARGS...: that exit, no stdout, and
# exactly one line on stderr, equal to EXPECTED (or containing it when it
# starts with "~").
err() {
    name=$1 want_rc=$2 want=$3
    shift 3
    run "$@"
    local line
    line=$(cat "$tmp/err")
    if [ "$rc" -ne "$want_rc" ]; then
        fail "exit $rc, want $want_rc"
    elif [ -s "$tmp/out" ]; then
        fail "unexpected stdout"
    elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        fail "want exactly one line on stderr"
    elif [ "${want:0:1}" = "~" ] && [[ "$line" != *"${want:1}"* ]]; then
        fail "stderr lacks: ${want:1}"
    elif [ "${want:0:1}" != "~" ] && [ "$line" != "$want" ]; then
        fail "stderr differs; want: $want"
    else
        pass
    fi
}

# ---- global commands ------------------------------------------------------

name=version
run --version
if [ "$rc" -eq 0 ] && grep -qxE 'sked [0-9]+\.[0-9]+\.[0-9]+' "$tmp/out"; then
    passed=$((passed + 1))
else
    fail "want \"sked X.Y.Z\""
fi

for a in "--help" "-h" "help" "cron --help" "help cron" "cron next --help" \
    "cron next -h" "help cron next" "cron explain --help" \
    "cron validate --help" "cron next 0 --help"; do
    name="help: $a"
    # shellcheck disable=SC2086
    run $a
    if [ "$rc" -eq 0 ] && head -1 "$tmp/out" | grep -q '^Usage: sked' &&
        [ ! -s "$tmp/err" ]; then
        pass
    else
        fail "want usage on stdout, exit 0"
    fi
done

name="help cron next == cron next --help"
run help cron next
cp "$tmp/out" "$tmp/help1"
run cron next --help
if cmp -s "$tmp/out" "$tmp/help1"; then
    passed=$((passed + 1))
else
    fail "the two helps differ"
fi

err "no command" 2 "sked: missing command (see 'sked --help')"
err "unknown command" 2 \
    "sked: unknown command \"frobnicate\" (see 'sked --help')" frobnicate
err "unknown global option" 2 \
    "sked: unknown option \"--frob\" (see 'sked --help')" --frob
err "cron without command" 2 \
    "sked: missing command (see 'sked cron --help')" cron
err "unknown cron command" 2 \
    "sked: unknown command \"nxt\" (see 'sked cron --help')" cron nxt
err "help of nothing" 2 \
    "sked: unknown command \"nope\" (see 'sked help --help')" help nope

# ---- next: SPEC 2.2 and DST changes ----------------------------------------

P="--tz Europe/Paris"
ok "spring gap fires at its end (SPEC 2.2)" \
    "2025-03-30T03:00:00+02:00  shifted
2025-03-31T02:30:00+02:00" \
    cron next "30 2 * * *" $P --after 2025-03-29T12:00:00Z -n 2
ok "spring gap, --utc" \
    "2025-03-30T01:00:00Z  shifted
2025-03-31T00:30:00Z
2025-04-01T00:30:00Z" \
    cron next "30 2 * * *" $P --after 2025-03-29T12:00:00Z -n 3 --utc
ok "autumn repeat fires on its first pass (SPEC 2.2)" \
    "2025-10-26T02:30:00+02:00  first_pass
2025-10-27T02:30:00+01:00" \
    cron next "30 2 * * *" $P --after 2025-10-25T12:00:00Z -n 2
ok "autumn repeat, --utc" \
    "2025-10-26T00:30:00Z  first_pass
2025-10-27T01:30:00Z" \
    cron next "30 2 * * *" $P --after 2025-10-25T12:00:00Z -n 2 --utc
ok "gap collapses into one firing, once" \
    "2025-03-30T01:30:00+01:00
2025-03-30T03:00:00+02:00  shifted
2025-03-30T03:30:00+02:00" \
    cron next "*/30 * * * *" $P --after 2025-03-30T00:15:00Z -n 3
ok "gap keeps the rhythm, cadence" \
    "2025-03-30T01:30:00+01:00
2025-03-30T03:00:00+02:00
2025-03-30T03:30:00+02:00" \
    cron next "*/30 * * * *" $P --dst cadence --after 2025-03-30T00:15:00Z \
    -n 3
ok "repeat fires once, once" \
    "2025-10-26T02:00:00+02:00  first_pass
2025-10-26T02:30:00+02:00  first_pass
2025-10-26T03:00:00+01:00" \
    cron next "*/30 * * * *" $P --after 2025-10-25T23:45:00Z -n 3
ok "repeat fires twice, cadence" \
    "2025-10-26T02:00:00+02:00  first_pass
2025-10-26T02:30:00+02:00  first_pass
2025-10-26T02:00:00+01:00  second_pass
2025-10-26T02:30:00+01:00  second_pass
2025-10-26T03:00:00+01:00" \
    cron next "*/30 * * * *" $P --dst=cadence --after 2025-10-25T23:45:00Z \
    -n 5
ok "fixed-time expressions ignore cadence" \
    "2025-10-26T02:30:00+02:00  first_pass
2025-10-27T02:30:00+01:00" \
    cron next "30 2 * * *" $P --dst cadence --after 2025-10-25T12:00:00Z -n 2
ok "New York weekdays across the spring change" \
    "2025-03-07T09:00:00-05:00
2025-03-10T09:00:00-04:00" \
    cron next "0 9 * * 1-5" --tz America/New_York \
    --after 2025-03-06T20:00:00Z -n 2
ok "Lord Howe's half-hour change, once" \
    "2025-04-06T01:30:00+11:00  first_pass
2025-04-06T02:00:00+10:30" \
    cron next "*/30 * * * *" --tz Australia/Lord_Howe \
    --after 2025-04-05T14:15:00Z -n 2
ok "Lord Howe's half-hour change, cadence" \
    "2025-04-06T01:30:00+11:00  first_pass
2025-04-06T01:30:00+10:30  second_pass
2025-04-06T02:00:00+10:30" \
    cron next "*/30 * * * *" --tz Australia/Lord_Howe --dst cadence \
    --after 2025-04-05T14:15:00Z -n 3
ok "Sao Paulo's midnight gap (2018)" \
    "2018-11-04T01:00:00-02:00  shifted
2018-11-05T00:00:00-02:00" \
    cron next "0 0 * * *" --tz America/Sao_Paulo \
    --after 2018-11-03T12:00:00Z -n 2
ok "Chatham's 02:45 change" \
    "2025-09-27T03:00:00+12:45
2025-09-28T03:45:00+13:45  shifted
2025-09-29T03:00:00+13:45" \
    cron next "0 3 * * *" --tz Pacific/Chatham --after 2025-09-26T12:00:00Z \
    -n 3
ok "London's 01:00 change" \
    "2025-03-30T02:00:00+01:00  shifted
2025-03-31T01:30:00+01:00" \
    cron next "30 1 * * *" --tz Europe/London --after 2025-03-29T12:00:00Z -n 2
# Paris kept local mean time, +00:09:21, until 1891: RFC 3339 offsets are
# whole minutes, so the offset is rounded and the local time follows it;
# the line still names the exact instant, 08:50:39Z.
ok "local mean time: offset rounded, instant exact" \
    "1890-01-01T08:59:39+00:09" \
    cron next "0 9 * * *" --tz Europe/Paris --after 1889-12-31T12:00:00Z -n 1
ok "local mean time in UTC" "1890-01-01T08:50:39Z" \
    cron next "0 9 * * *" --tz Europe/Paris --after 1889-12-31T12:00:00Z -n 1 \
    --utc
ok "last day of the month, UTC by default" \
    "2024-02-29T00:00:00+00:00
2024-03-31T00:00:00+00:00
2024-04-30T00:00:00+00:00" \
    cron next "0 0 L * *" --after 2024-01-31T12:00:00Z -n 3
ok "six fields, seconds" \
    "2025-01-01T00:00:15Z
2025-01-01T00:00:45Z
2025-01-01T00:01:15Z" \
    cron next "15,45 * * * * *" --after 2025-01-01T00:00:00Z -n 3 --utc
ok "strictly after" "2025-01-02T09:00:00Z" \
    cron next "0 9 * * *" --after 2025-01-01T09:00:00Z -n 1 --utc
ok "--after with an offset and a fraction" "2025-01-01T09:00:00Z" \
    cron next "0 9 * * *" --after 2025-01-01T09:59:59.5+01:00 -n 1 --utc
ok "option spellings" \
    "2025-03-30T03:00:00+02:00  shifted
2025-03-31T02:30:00+02:00" \
    cron next --tz=Europe/Paris -n2 "30 2 * * *" --after=2025-03-29T12:00:00Z
ok "--count and --" "2025-03-30T03:00:00+02:00  shifted" \
    cron next --count 1 --tz Europe/Paris --after 2025-03-29T12:00:00Z \
    -- "30 2 * * *"
ok "@daily in UTC by name" "2025-01-02T00:00:00+00:00" \
    cron next @daily --tz UTC --after 2025-01-01T00:00:00Z -n 1

name="-n 10000 prints 10000 lines"
run cron next "* * * * *" --after 2025-01-01T00:00:00Z -n 10000 --utc
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 10000 ] &&
    [ "$(tail -1 "$tmp/out")" = "2025-01-07T22:40:00Z" ]; then
    passed=$((passed + 1))
else
    fail "want 10000 lines ending 2025-01-07T22:40:00Z"
fi

name="--after defaults to now"
before=$(date -u +%s)
run cron next "* * * * *" -n 1 --utc
got=$(date -u -d "$(cat "$tmp/out")" +%s 2>/dev/null || echo 0)
if [ "$rc" -eq 0 ] && [ "$got" -gt "$before" ] &&
    [ "$got" -le $((before + 62)) ]; then
    passed=$((passed + 1))
else
    fail "want the next minute after now"
fi

name="an expression that stops firing prints what it found"
run cron next "0 0 29 2 *" --after 9990-01-01T00:00:00Z -n 5 --utc
if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "9992-02-29T00:00:00Z
9996-02-29T00:00:00Z" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
    passed=$((passed + 1))
else
    fail "want two occurrences, exit 0, one note on stderr"
fi

# ---- explain and validate --------------------------------------------------

ok "explain with a zone" "At 09:00, Monday through Friday (Europe/Paris)" \
    cron explain "0 9 * * 1-5" --tz Europe/Paris
ok "explain says UTC by default" "At 09:00, Monday through Friday (UTC)" \
    cron explain "0 9 * * 1-5"
ok "validate a good expression" "valid" cron validate "0 9 * * 1-5"
ok "validate a macro" "valid" cron validate "@hourly"
err "validate a bad expression" 1 \
    "sked: invalid cron expression \"0 25 * * *\": hour: 25 is out of range 0-23 (at byte 3)" \
    cron validate "0 25 * * *"
err "validate a date that never comes" 1 \
    "~sked: invalid cron expression \"0 0 30 2 *\": " \
    cron validate "0 0 30 2 *"
err "explain a bad expression" 1 \
    "~sked: invalid cron expression \"0 0 * * MON-FOO\": day-of-week: " \
    cron explain "0 0 * * MON-FOO"
err "explain in an unknown zone" 1 \
    "sked: invalid --tz \"Mars/Base\": unknown time zone" \
    cron explain "0 9 * * *" --tz Mars/Base

# ---- bad input: one line, field and byte, exit 1 or 2 ----------------------

err "minute out of range" 1 \
    "sked: invalid cron expression \"60 * * * *\": minute: 60 is out of range 0-59 (at byte 1)" \
    cron next "60 * * * *"
err "step 0" 1 "~sked: invalid cron expression \"*/0 * * * *\": minute: " \
    cron next "*/0 * * * *"
err "reversed range" 1 "~: hour: " cron next "0 5-2 * * *"
err "unknown name" 1 "~: month: " cron next "0 0 1 FOO *"
err "field count" 1 "~(at byte" cron next "0 0 1 *"
err "trailing garbage" 1 "~(at byte" cron next "0 0 1 * * * *x"
long=$(printf '0,%.0s' $(seq 150))0
err "expression over 256 bytes" 1 "~longer than 256 bytes (at byte 257)" \
    cron next "$long * * * *"
err "unknown zone" 1 "sked: invalid --tz \"Mars/Base\": unknown time zone" \
    cron next "0 9 * * *" --tz Mars/Base
err "zone name escaping the database" 1 "~sked: invalid --tz \"../etc/passwd\": " \
    cron next "0 9 * * *" --tz ../etc/passwd
err "empty zone" 1 "~sked: invalid --tz \"\": " cron next "0 9 * * *" --tz=
err "--after month out of range" 1 \
    "sked: invalid --after \"2025-13-01T00:00:00Z\": month: 13 is out of range 1-12 (at byte 6)" \
    cron next "0 9 * * *" --after 2025-13-01T00:00:00Z
err "--after without an offset" 1 \
    "~sked: invalid --after \"2025-03-01T09:00:00\": offset: missing UTC offset: add \"Z\"" \
    cron next "0 9 * * *" --after 2025-03-01T09:00:00
err "--after leap second" 1 "~: second: 60 is a leap second" \
    cron next "0 9 * * *" --after 2016-12-31T23:59:60Z
err "--after on Feb 29 of a common year" 1 \
    "~: day: 29 is out of range 1-28 in 2025-02 (at byte 9)" \
    cron next "0 9 * * *" --after 2025-02-29T00:00:00Z
err "--after date only" 1 "~: hour: missing the time of day: write it as \"T00:00:00Z\" after the date (at byte 11)" \
    cron next "0 9 * * *" --after 2025-02-01
err "--after trailing text" 1 "~after the offset (at byte 21)" \
    cron next "0 9 * * *" --after "2025-02-01T00:00:00Z x"
err "--dst unknown" 1 "~sked: invalid --dst \"sometimes\": " \
    cron next "0 9 * * *" --dst sometimes
err "-n zero" 2 "~sked: invalid -n \"0\": expected a whole number from 1 to 10000" \
    cron next "0 9 * * *" -n 0
err "-n too many" 2 "~sked: invalid -n \"10001\"" cron next "0 9 * * *" -n 10001
err "-n not a number" 2 "~sked: invalid -n \"five\"" cron next "0 9 * * *" -n five
err "-n negative" 2 "~sked: invalid -n \"-1\"" cron next "0 9 * * *" -n -1
err "usage errors come before bad values" 2 "~sked: invalid -n \"0\"" \
    cron next "99 * * * *" -n 0
err "-n huge" 2 "~sked: invalid -n \"99999999999999999999999\"" \
    cron next "0 9 * * *" -n 99999999999999999999999
err "-n without value" 2 \
    "sked: option -n needs a value (see 'sked cron next --help')" \
    cron next "0 9 * * *" -n
err "--tz without value" 2 \
    "sked: option --tz needs a value (see 'sked cron next --help')" \
    cron next "0 9 * * *" --tz
err "flag with a value" 2 \
    "sked: option --utc takes no value (see 'sked cron next --help')" \
    cron next "0 9 * * *" --utc=yes
err "unknown long option" 2 \
    "sked: unknown option \"--zone\" (see 'sked cron next --help')" \
    cron next "0 9 * * *" --zone Europe/Paris
err "unknown short option" 2 \
    "sked: unknown option \"-x\" (see 'sked cron next --help')" \
    cron next "0 9 * * *" -x
err "missing expression" 2 \
    "sked: missing the cron expression (see 'sked cron next --help')" \
    cron next --tz Europe/Paris
err "unquoted expression" 2 "~too many arguments: quote the expression" \
    cron next 0 9 '*' '*' '*'
err "validate without expression" 2 "~missing the cron expression" \
    cron validate
err "validate takes no --tz" 2 "~unknown option \"--tz\"" \
    cron validate "0 9 * * *" --tz UTC
huge=$(head -c 100000 /dev/zero | tr '\0' '1')
err "huge argument" 1 "sked: argument 3 is longer than 4096 bytes" \
    cron next "$huge"
err "control characters are escaped" 1 \
    "~sked: invalid cron expression \"0 9 * *\\x0a*\\x1b\"" \
    cron validate $'0 9 * *\n*\e'

finish
