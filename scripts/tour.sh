#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A short tour of sked's time engine, for `make tour`: a few schedules, each
# explained in words, then its occurrences across the NEXT daylight saving
# change of its zone, with the marks sked puts on occurrences a change
# moved. The change is found by asking sked itself for a year of hourly
# occurrences and looking for the first change of offset.
# Usage: scripts/tour.sh path/to/sked
set -euo pipefail

bin=${1:?usage: tour.sh path/to/sked}
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)

bold() { printf '\033[1m%s\033[0m\n' "$*"; }
[ -t 1 ] || bold() { printf '%s\n' "$*"; }

# Print "UTC_BEFORE OLD_OFFSET NEW_OFFSET LOCAL_DAY" for the first offset
# change of zone $1 in the coming year, where UTC_BEFORE is $2 hours before
# it; print nothing when the zone keeps one offset all year. (awk reads
# to the end: an early exit would break the pipe under pipefail.)
next_change() {
    local zone=$1 back=$2
    paste -d' ' \
        <("$bin" cron next "0 * * * *" --tz "$zone" --after "$now" \
            -n 10000 --utc | cut -d' ' -f1) \
        <("$bin" cron next "0 * * * *" --tz "$zone" --after "$now" \
            -n 10000 | cut -d' ' -f1) |
        awk -v back="$back" '
            { utc[NR] = $1; off = substr($2, length($2) - 5) }
            NR > 1 && off != prev && !found {
                i = NR - back; if (i < 1) i = 1
                print utc[i], prev, off, substr($2, 1, 10); found = 1
            }
            { prev = off }'
}

# Show schedule $1 in zone $2: explain, then -n $4 occurrences from $3
# hours before the zone's next change; extra arguments go to "cron next".
show() {
    local expr=$1 zone=$2 back=$3 count=$4 change after
    shift 4
    change=$(next_change "$zone" "$back")
    after=${change%% *}
    [ -n "$change" ] || after=$now
    echo "  \$ sked cron next \"$expr\" --tz $zone${*:+ $*} --after $after -n $count"
    "$bin" cron next "$expr" --tz "$zone" "$@" --after "$after" -n "$count" |
        sed 's/^/    /'
}

# Print the title of schedule $1 in zone $2 and its explanation.
title() {
    local expr=$1 zone=$2 change
    echo
    bold "\"$expr\" in $zone"
    echo "  $("$bin" cron explain "$expr" --tz "$zone")"
    change=$(next_change "$zone" 0)
    if [ -n "$change" ]; then
        read -r _ old new day <<<"$change"
        echo "  next change of offset: $day, $old -> $new"
    else
        echo "  no change of offset in the coming year"
    fi
}

bold "$("$bin" --version): a tour of the time engine"
echo "Every schedule runs in its IANA time zone. When a local time is skipped"
echo "by a change it fires at the end of the gap (shifted); when it happens"
echo "twice it fires once, on its first pass, unless --dst cadence asks to"
echo "keep a frequent job's real-time rhythm."

title "30 2 * * *" Europe/Paris
show "30 2 * * *" Europe/Paris 26 3

title "0 9 * * 1-5" America/New_York
show "0 9 * * 1-5" America/New_York 72 4

title "*/30 * * * *" Australia/Lord_Howe
show "*/30 * * * *" Australia/Lord_Howe 1 3 --dst once
show "*/30 * * * *" Australia/Lord_Howe 1 4 --dst cadence

echo
bold "\"0 0 L * *\" (UTC, the default zone)"
echo "  $("$bin" cron explain "0 0 L * *")"
echo "  \$ sked cron next \"0 0 L * *\" --utc -n 3"
"$bin" cron next "0 0 L * *" --after "$now" --utc -n 3 | sed 's/^/    /'

echo
bold "Try:"
echo "  $bin cron next \"0 9 * * MON-FRI\" --tz Asia/Tokyo"
echo "  $bin cron explain \"*/15 9-17 * * 1-5\" --tz Europe/London"
echo "  $bin cron validate \"0 0 30 2 *\""
