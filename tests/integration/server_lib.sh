# SPDX-License-Identifier: MIT
# Shared by the scripted tests that run real "sked server" processes
# (sourced, not run): starting and stopping servers, waiting for a log
# line, SQL on either back-end, and the check every firing test ends with
# — for each occurrence of a period, exactly one run or one missed event
# with its reason (SPEC 3.3, 11).
#
# Sourcing it sets bin (the sked binary, from SKED_BIN), tmp (a scratch
# directory) and py, and traps EXIT with cleanup: every server killed,
# every process still running under $tmp killed, $tmp removed. A script
# with more to undo traps its own and calls cleanup from it. The caller
# sets mode (sqlite or pg) for mode_db, and counts through check, pass
# and fail (the counters passed and failed).

bin=${SKED_BIN:?SKED_BIN is the sked binary}
tmp=$(mktemp -d)
py=/usr/bin/python3
passed=${passed:-0}
failed=${failed:-0}

cleanup() {
    kill_all
    pkill -KILL -f "$tmp/" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

pass() { passed=$((passed + 1)); }

# fail NAME WHY: count a failure and print it.
fail() {
    failed=$((failed + 1))
    printf 'FAIL %s: %s\n' "$1" "$2"
}

# check NAME GOT WANT: equal strings pass.
check() {
    if [ "$2" = "$3" ]; then
        pass
    else
        fail "$1" "got '$2', want '$3'"
    fi
}

# check_le NAME GOT MAX: a number at most MAX passes.
check_le() {
    if [ -n "$2" ] && [ "$2" -le "$3" ] 2>/dev/null; then
        pass
    else
        fail "$1" "got '$2', want at most $3"
    fi
}

# check_ge NAME GOT MIN
check_ge() {
    if [ -n "$2" ] && [ "$2" -ge "$3" ] 2>/dev/null; then
        pass
    else
        fail "$1" "got '$2', want at least $3"
    fi
}

# mode_db FILE: set db for the test's $mode: sqlite:$tmp/FILE, or the
# PostgreSQL database of the pg fixture; another mode is a usage error.
mode_db() {
    case $mode in
    sqlite) db=sqlite:$tmp/$1 ;;
    pg) db=${SKED_TEST_PG_URL:?pg mode needs SKED_TEST_PG_URL} ;;
    *)
        echo "usage: $(basename "$0") [sqlite|pg]" >&2
        exit 2
        ;;
    esac
}

# Print the current wall time in µs since the epoch. GNU date, not a
# Python start (150 ms here, seconds on a loaded machine), so that the
# instant a test takes right after a signal is the signal's.
now_us() {
    date +%s%6N
}

# q URL SQL: run SQL on the database URL, print rows as "a|b|c".
q() {
    case $1 in
    sqlite:*) sqlite3 -cmd '.timeout 10000' "${1#sqlite:}" "$2" ;;
    *) psql "$1" -X -Atq -F '|' -c "$2" ;;
    esac
}

# start_server NAME ARGS...: start "sked server ARGS" in the background,
# stderr to $tmp/NAME.log; its pid in the variable pid_NAME.
start_server() {
    local n=$1 listen=(--listen 127.0.0.1:0)
    shift
    # Any free port, unless the test chose: servers run side by side.
    case " $* " in *" --listen "*) listen=() ;; esac
    "$bin" server "${listen[@]}" "$@" >"$tmp/$n.out" 2>>"$tmp/$n.log" &
    printf -v "pid_$n" '%s' "$!"
}

# start_http NAME ARGS...: start_server, then wait (20 s at most) for its
# "http listening" line and set url_NAME to its URL. Returns 1 when the
# server never listened.
start_http() {
    local n=$1 line
    start_server "$@"
    wait_log "$n" 'msg="http listening"' 20 || return 1
    line=$(grep -m1 'msg="http listening"' "$tmp/$n.log")
    line=${line#*url=}
    printf -v "url_$n" '%s' "${line%% *}"
}

# wait_log NAME PATTERN SECONDS: wait until $tmp/NAME.log has a line
# matching the extended regex PATTERN. Returns 1 on timeout.
wait_log() {
    local deadline=$((SECONDS + $3))
    while [ $SECONDS -lt $deadline ]; do
        grep -Eq -- "$2" "$tmp/$1.log" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# stop_server NAME SIGNAL: send SIGNAL and wait. Sets stop_rc (the exit
# status) and stop_ms (how long it took, in ms).
stop_server() {
    local pv="pid_$1" t0 t1
    local pid=${!pv}
    t0=$(now_us)
    kill -s "$2" "$pid" 2>/dev/null
    wait "$pid"
    stop_rc=$?
    t1=$(now_us)
    stop_ms=$(((t1 - t0) / 1000))
}

# kill_all: SIGKILL every server still running (cleanup on failure).
kill_all() {
    local v
    for v in $(compgen -v pid_); do
        kill -KILL "${!v}" 2>/dev/null
    done
    wait 2>/dev/null
}

# The missed events of URL as rows "schedule|reason|count|first_us|last_us".
# The payload's first and last are RFC 3339 instants.
missed_rows() {
    case $1 in
    sqlite:*)
        q "$1" "SELECT subject, json_extract(payload, '\$.reason'),
                json_extract(payload, '\$.count'),
                CAST(round((julianday(json_extract(payload, '\$.first'))
                       - 2440587.5) * 86400.0) AS INTEGER) * 1000000,
                CAST(round((julianday(json_extract(payload, '\$.last'))
                       - 2440587.5) * 86400.0) AS INTEGER) * 1000000
                FROM events WHERE type = 'schedule.occurrences_missed'"
        ;;
    *)
        q "$1" "SELECT subject, payload::json->>'reason',
                payload::json->>'count',
                (extract(epoch FROM (payload::json->>'first')::timestamptz)
                    * 1000000)::bigint,
                (extract(epoch FROM (payload::json->>'last')::timestamptz)
                    * 1000000)::bigint
                FROM events WHERE type = 'schedule.occurrences_missed'"
        ;;
    esac
}

# account URL PREFIX FROM_US TO_US PERIOD_US: for every schedule named
# PREFIX*, every occurrence FROM < t <= TO on the grid of PERIOD (the
# schedules fire at whole multiples of it) must have exactly one run or lie
# in exactly one missed range, and no run may lie in a missed range.
# Prints "occurrences=N runs=R missed=M absent=A doubled=D bad_reason=B
# bad_count=C" (C: missed ranges whose count is not the number of
# occurrences between their first and last) and the first few bad
# occurrences on stderr.
account() {
    local url=$1 prefix=$2 from=$3 to=$4 period=$5
    q "$url" "SELECT schedule, scheduled_for FROM runs
              WHERE schedule LIKE '$prefix%' AND scheduled_for IS NOT NULL" \
        >"$tmp/acc.runs"
    q "$url" "SELECT name FROM schedules WHERE name LIKE '$prefix%'" \
        >"$tmp/acc.names"
    missed_rows "$url" >"$tmp/acc.missed"
    "$py" - "$tmp/acc.runs" "$tmp/acc.names" "$tmp/acc.missed" \
        "$from" "$to" "$period" <<'EOF'
import collections, sys
runs_f, names_f, missed_f, lo, hi, period = sys.argv[1:7]
lo, hi, period = int(lo), int(hi), int(period)
reasons = {"catchup_skip", "superseded", "catchup_max", "outside_window",
           "overlap"}
names = [l.strip() for l in open(names_f) if l.strip()]
runs = collections.Counter()
for l in open(runs_f):
    if l.strip():
        s, t = l.strip().split("|")
        runs[(s, int(t))] += 1
missed = collections.defaultdict(list)
bad_reason = bad_count = 0
for l in open(missed_f):
    if not l.strip():
        continue
    s, reason, count, first, last = l.strip().split("|")
    if reason not in reasons:
        bad_reason += 1
    first, last, count = int(first), int(last), int(count)
    missed[s].append((first, last, count))
    # On a grid of PERIOD, a range of COUNT occurrences spans COUNT - 1
    # periods; anything else hides a run inside it or a gap.
    if s in names and (last - first) // period + 1 != count:
        bad_count += 1
n = absent = doubled = n_runs = n_missed = 0
bad = []
first_t = (lo // period + 1) * period
for s in names:
    t = first_t
    while t <= hi:
        n += 1
        r = runs[(s, t)]
        m = sum(1 for (a, b, c) in missed[s] if a <= t <= b)
        n_runs += r
        n_missed += m
        if r + m == 0:
            absent += 1
            bad.append(("absent", s, t))
        elif r + m > 1:
            doubled += 1
            bad.append(("doubled", s, t, r, m))
        t += period
print("occurrences=%d runs=%d missed=%d absent=%d doubled=%d bad_reason=%d "
      "bad_count=%d" % (n, n_runs, n_missed, absent, doubled, bad_reason,
                        bad_count))
for b in bad[:10]:
    print("  ", b, file=sys.stderr)
EOF
}

# field LINE KEY: the value of KEY in the "a=1 b=2" line LINE.
field() {
    sed -En "s/(^|.* )$2=([^ ]*).*/\2/p" <<<"$1" | head -n 1
}
