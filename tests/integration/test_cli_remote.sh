#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI's remote mode (SPEC 7): every command given --server URL prints
# what it prints given --db URL — same stdout, same stderr, same exit
# code — through a real "sked server" over loopback HTTP.
#
# 1. One scenario, run twice: with --db on one fresh database, and with
#    --server on a server over another fresh one (both registered the
#    same workflows). Schedules: create (cron, every, at, paused), a name
#    that exists (4), invalid values (1), get, list with pagination and
#    filters, update, pause, resume, trigger (and its conflict under
#    overlap skip, 4), backfill (and a range over the cap), skip, unskip
#    and skips of one occurrence, run of one past occurrence, preview,
#    simulate, delete, not found (3); apply and --prune; runs: list, get,
#    start with an idempotency key, cancel (and again: 4); workflow list;
#    events; notifiers: apply, list, get, delete, log, and sked apply of
#    a file's notifiers (taken over, unchanged, pruned, another app's
#    name refused). Human and --json
#    outputs; a schedule with every field of a
#    definition set, then changed. The two transcripts are compared line
#    by line, instants of "now" and the ids made of them replaced. Every
#    command that takes --server, and every option of it, must appear in
#    the scenario (read from the commands' own --help): a command or an
#    option added without being compared here fails.
# 2. Where the server is: --server before or after the command,
#    $SKED_SERVER, a trailing slash; --db with --server is a usage error
#    (2); an unreachable server is one line and exit 1.
# 3. A token: $SKED_TOKEN is sent as a bearer token; a wrong one (also
#    one of the right length differing in its first, a middle or its last
#    byte) is one line naming the server, exit 1.
# 4. sked events --follow: over the API (the event stream) and on the
#    database (polling), each event printed as it happens; SIGINT ends it
#    with exit 0.
# 5. backfill on a terminal: a progress bar drawn chunk by chunk over the
#    API, the same counts as without it.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=${SKED_SOURCE_DIR:-$here/../..}
if [ -f "$src/tests/data/zoneinfo/Europe/Paris" ]; then
    export TZDIR=$src/tests/data/zoneinfo
fi
. "$here/server_lib.sh"
trap '[ -n "${KEEP:-}" ] && cp "$tmp"/*.norm /tmp/ 2>/dev/null; cleanup' EXIT
unset SKED_DB SKED_SERVER SKED_TOKEN

# The workflows every server registers; their schedules are none, so
# nothing fires while the scenario runs.
cat >"$tmp/reg.yaml" <<'EOF'
workflows:
  report:
    steps:
      - name: one
        sh: 'true'
  etl:
    queue: nightly
    steps:
      - name: a
        sh: 'true'
      - name: b
        needs: [a]
        sh: 'true'
EOF
# Both files are one app's: the second prunes what the first made.
cat >"$tmp/apply1.yaml" <<'EOF'
app: demo
workflows:
  report:
    steps:
      - name: one
        sh: 'true'
    schedules:
      - cron: "0 6 1 1 *"
        timezone: Europe/Paris
schedules:
  - name: code-a
    workflow: etl
    cron: "30 5 1 1 *"
  - name: code-b
    workflow: etl
    every: 12h
EOF
cat >"$tmp/apply2.yaml" <<'EOF'
app: demo
schedules:
  - name: code-a
    workflow: etl
    cron: "45 5 1 1 *"
EOF
cat >"$tmp/office.ics" <<'EOF'
BEGIN:VCALENDAR
BEGIN:VEVENT
DTSTART;VALUE=DATE:20300610
DTEND;VALUE=DATE:20300612
END:VEVENT
END:VCALENDAR
EOF
cat >"$tmp/notify.yaml" <<'EOF'
app: demo
notifiers:
  ops-hook:
    webhook: {url: "http://127.0.0.1:9/hook", secret_env: HOOK_SECRET}
    events: [run.failed, schedule.deadline_missed]
    schedules: ["nightly-*"]
  mail:
    email: {to: [ops@example.com]}
    events: [schedule.paused]
    retry_for: 2h
EOF
cat >"$tmp/bad-notify.yaml" <<'EOF'
notifiers:
  h:
    webhook: {url: "gopher://x"}
    events: [run.failed]
EOF
# sked apply of notifiers: app alerts takes ops-hook over from the API
# (sked notify apply made it), then prunes it; app rival is refused one
# of alerts' names.
cat >"$tmp/ntf-apply1.yaml" <<'EOF'
app: alerts
notifiers:
  ops-hook:
    webhook: {url: "http://127.0.0.1:9/hook", secret_env: HOOK_SECRET}
    events: [run.failed]
  pager:
    command: {argv: ["/bin/true"]}
    events: [schedule.paused]
EOF
cat >"$tmp/ntf-apply2.yaml" <<'EOF'
app: alerts
notifiers:
  pager:
    command: {argv: ["/bin/true", "--loud"]}
    events: [schedule.paused]
EOF
cat >"$tmp/ntf-rival.yaml" <<'EOF'
app: rival
notifiers:
  pager:
    command: {argv: ["/bin/true"]}
    events: [run.failed]
EOF
cat >"$tmp/bad.yaml" <<'EOF'
schedules:
  - name: code-x
    workflow: etl
    cron: "61 5 * * *"
EOF

# sk ARGS...: run sked with the mode's option ($mode: "--db URL" or
# "--server URL") and append "$ sked ARGS", stdout, stderr and the exit
# code to the transcript $log. Sets out (stdout) and rc.
sk() {
    "$bin" "$@" $mode >"$tmp/o" 2>"$tmp/e"
    rc=$?
    out=$(cat "$tmp/o")
    {
        printf '$ sked %s\n' "$*"
        cat "$tmp/o"
        sed 's/^/stderr: /' "$tmp/e"
        printf 'exit %s\n' "$rc"
    } >>"$log"
}

# Every option of "sked schedule VERB" that takes a value, with a valid
# one chosen by its placeholder in --help, but for those of the other
# time specs: a new field's option is compared without a word here.
every_value_option() {
    local opt ph v
    "$bin" schedule "$1" --help |
        sed -nE 's/^  (--[a-z-]+) ([A-Z]+|[a-z]+(\|[a-z]+)+) .*/\1 \2/p' |
        while read -r opt ph; do
            case $opt in
            --name | --every | --anchor | --at | --cron | --rrule | --db | --server) continue ;;
            esac
            case $opt:$ph in
            --end-at:*) v=2031-06-01T00:00:00Z ;;
            *:D) v=1h ;;
            *:T) v=2030-06-01T00:00:00Z ;;
            *:N) v=3 ;;
            *:JSON) v='{"g": 1}' ;;
            *:TZ) v=Europe/London ;;
            *:P) v=skip ;;
            *:*'|'*) v=${ph##*|} ;;
            *) v=${opt#--}-text ;;
            esac
            printf '%s\n%s\n' "$opt" "$v"
        done
}

scenario() {
    local t1 s2 gen
    # -- create
    sk schedule create report "0 9 1 1 *" --name s1 --timezone Europe/Paris \
        --overlap skip --description "yearly"
    sk schedule create etl --every 6h --anchor 2026-01-01T00:00:00Z --name s2 \
        --json
    sk schedule create report --at 2030-01-01T00:00:00Z --name s3 --paused
    sk schedule create report "0 9 1 1 *" --name s1
    sk schedule create report "0 9 * * *" --name s4 --timezone Europe/Pariss
    sk schedule create report "0 9 * * *" --name s4 --catchup-max 0
    sk schedule create report "0 9 * * *" --name s4 --overlap sometimes
    sk schedule create "bad name" "0 9 * * *"
    # Every field of a definition, through each mode's body; nothing of
    # it fires while the scenario runs (it starts in 2030, or is paused).
    sk schedule create etl "*/30 * * * *" --name s5 --timezone America/New_York \
        --dst cadence --catchup all --catchup-max 3 --catchup-window 2h \
        --overlap buffer_all --context '{"k": [1, "x"]}' --priority -3 \
        --queue q5 --jitter 90s --start-at 2030-01-01T00:00:00Z \
        --end-at 2031-01-01T00:00:00Z --max-runs 50 --pause-after-failures 4 \
        --description "every field" --json
    sk schedule create report --at 2020-01-01T00:00:00Z --allow-past \
        --name s6 --paused --json
    sk schedule create report --at 2020-01-01T00:00:00Z --name s7
    sk schedule create etl --every 1d --anchor 2030-01-01T00:00:00Z \
        --automatic-backfill --name s8
    mapfile -t gen < <(every_value_option create)
    sk schedule create report "0 4 * * *" --name s9 "${gen[@]}" --json
    mapfile -t gen < <(every_value_option update)
    sk schedule update s9 "${gen[@]}" --timezone America/Sao_Paulo --json
    # An RFC 5545 rule under a DST policy of the matrix, and calendar days.
    sk schedule create report --rrule 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0' \
        --name s10 --timezone Europe/Paris --dst both,skip --paused --json
    sk schedule update s10 --rrule 'FREQ=WEEKLY;BYDAY=XX' --json
    sk schedule create etl --every 1d --calendar-days --name s11 \
        --anchor 2030-01-01T08:00:00Z --timezone Europe/Paris --json
    sk schedule update s11 --every 36h --calendar-days
    sk schedule update s11 --every 2d --calendar-days --json
    # A heartbeat: its occurrences wait for pings; none awaits one now.
    sk schedule create backup "0 3 1 1 *" --name s20 --heartbeat \
        --deadline 1h --start-deadline 5m --json
    sk schedule update s20 --heartbeat --deadline 2h --json
    sk ping s20
    sk ping s20 --status fail --body "disk full" --json
    sk ping s20 --status later
    sk ping nope
    # -- calendars
    sk calendar create hol --date 2030-01-01 --date 2030-12-25 \
        --rule 'FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4' --observed nearest_weekday \
        --weekdays mon-fri --description "holidays" --json
    sk calendar create office --include hol --ics "$tmp/office.ics"
    sk calendar create hol --date 2030-01-01
    sk calendar create bad --date 2030-02-30
    sk calendar update hol --date 2030-01-02 --json
    sk calendar update office --rule 'FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO' \
        --include hol --ics "$tmp/office.ics" --observed next_monday \
        --weekdays sun-thu --description "office days off"
    sk calendar update nope --date 2030-01-02
    sk calendar get office --json
    sk calendar get nope
    sk calendar list
    sk calendar list --json
    sk calendar list --names
    sk calendar list --names --json
    sk calendar days office --from 2030-01-01 --to 2031-12-31
    sk calendar days hol --from 2030-12-20 --to 2030-12-31 --business --json
    # Schedules over calendars: excluded and moved occurrences previewed,
    # a calendar in use not deleted, an unknown one refused.
    sk schedule create etl '0 9 2 1 *' --name s12 --timezone Europe/Paris \
        --exclude hol,office --on-excluded next_business_day
    sk schedule create etl '0 9 * * *' --name s13 --only office --json
    sk schedule create etl '0 9 * * *' --name s14 --exclude nope
    sk schedule update s12 --exclude hol --on-excluded previous_business_day
    sk schedule update s13 --only hol --json
    sk schedule preview s12 --after 2030-01-01T00:00:00Z -n 3
    sk schedule preview s12 --after 2030-01-01T00:00:00Z -n 2 --json
    sk calendar delete hol
    sk calendar delete office
    sk calendar delete hol
    sk schedule delete s12
    sk schedule delete s13
    sk calendar delete hol
    sk calendar delete office
    # -- read
    sk schedule get s1
    sk schedule get s2 --json
    sk schedule get nope
    sk schedule list
    sk schedule list --limit 2
    sk schedule list --limit 2 --cursor s2 --json
    sk schedule list --status paused
    sk schedule list --names --limit 1 --prefix s
    sk schedule list --names --json
    sk schedule list --workflow etl --prefix s --json
    sk schedule list --status sleepy
    # -- update, pause, resume
    sk schedule update s1 --priority 5 --description "still yearly"
    sk schedule update s2 --every 8h --json
    sk schedule update s1 --jitter 2h
    sk schedule update nope --priority 1
    sk schedule update s5 --workflow report --cron "15 3 * * *" \
        --automatic-backfill --json
    sk schedule update s5 --no-automatic-backfill --every 2h \
        --anchor 2030-01-01T00:00:00Z --queue "" --description "" --json
    sk schedule update s5 --timezone Asia/Kolkata --dst once --catchup skip \
        --catchup-window 1d --overlap skip --context '{}' \
        --start-at 2030-02-01T00:00:00Z --end-at 2030-12-01T00:00:00Z \
        --max-runs 0 --pause-after-failures 0 --json
    sk schedule update s5 --catchup-max 0
    sk schedule update s6 --at 2021-01-01T00:00:00Z --allow-past --json
    sk schedule pause s5 --json
    sk schedule pause s1
    sk schedule pause nope
    sk schedule resume s1 --json
    sk schedule resume s3
    # -- trigger and backfill
    sk schedule trigger s1
    t1=$out
    sk schedule trigger s1
    sk schedule trigger nope
    sk schedule trigger s5 --json
    sk schedule backfill s2 --start 2026-01-01T00:00:00Z \
        --end 2026-01-03T00:00:00Z
    sk schedule backfill s2 --start 2026-01-01T00:00:00Z \
        --end 2026-01-04T00:00:00Z --json
    sk schedule backfill s2 --start 2026-01-04T00:00:00Z \
        --end 2026-01-01T00:00:00Z
    sk schedule backfill s2 --start 2026-01-01T00:00:00Z \
        --end 2300-01-01T00:00:00Z
    sk schedule backfill s2 --start 2026-01-01T00:00:00Z
    sk schedule backfill nope --start 2026-01-01T00:00:00Z \
        --end 2026-01-04T00:00:00Z
    # -- one occurrence: skip, unskip, list, run
    sk schedule skip s1 --at 2030-01-01T08:00:00Z --reason "new year"
    sk schedule skip s1 --at 2030-01-01T08:00:00Z --json
    sk schedule skip s1 --at 2031-01-01T08:00:00Z
    sk schedule skip s1 --at 2030-01-01T09:00:00Z
    sk schedule skip s1 --at 2020-01-01T08:00:00Z
    sk schedule skip s1
    sk schedule skip nope --at 2030-01-01T08:00:00Z
    sk schedule skips s1
    sk schedule skips s1 --json
    sk schedule skips nope
    sk schedule preview s1 -n 2 --after 2029-06-01T00:00:00Z
    sk schedule unskip s1 --at 2031-01-01T08:00:00Z
    sk schedule unskip s1 --at 2031-01-01T08:00:00Z --json
    sk schedule unskip s1 --at 2020-01-01T08:00:00Z
    sk schedule run s1 --at 2026-01-01T08:00:00Z
    sk schedule run s1 --at 2026-01-01T08:00:00Z --json
    sk schedule run s1 --at 2026-01-01T08:00:01Z
    sk schedule run s1 --at 2031-01-01T08:00:00Z
    # -- preview and simulate
    sk schedule preview s1 -n 3 --after 2026-03-28T00:00:00Z
    sk schedule preview s2 --after 2026-01-01T00:00:00Z --json
    sk schedule preview s3 --after 2026-01-01T00:00:00Z
    sk schedule preview nope
    sk schedule simulate s2 --from 2026-01-01T00:00:00Z \
        --to 2026-01-03T00:00:00Z --down 2026-01-01T10:00:00Z..2026-01-02T10:00:00Z
    sk schedule simulate s1 --from 2026-01-01T00:00:00Z \
        --to 2028-01-03T00:00:00Z --json
    sk schedule simulate nope --from 2026-01-01T00:00:00Z \
        --to 2026-01-03T00:00:00Z
    sk schedule simulate s5 --from 2030-03-01T00:00:00Z \
        --to 2030-03-02T00:00:00Z --run-duration 3h --tick 5s
    # -- apply
    sk apply "$tmp/apply1.yaml"
    sk apply "$tmp/apply1.yaml" --json
    sk apply "$tmp/apply2.yaml" --prune
    sk apply "$tmp/bad.yaml"
    sk schedule list --prefix code
    # -- runs and workflows
    sk run list
    sk run list --limit 2
    sk run list --schedule s2 --json
    sk run list --status sleeping
    sk run list --workflow report --limit 1
    sk run list --workflow report --limit 1 --json
    c=$(printf '%s' "$out" | sed -n 's/.*"next_cursor": "\([^"]*\)".*/\1/p')
    sk run list --workflow report --limit 2 --cursor "$c"
    sk run list --status pending --schedule s1 --json
    sk run list --status "" --schedule "" --workflow "" --cursor "" --limit 1
    sk run get "$t1"
    sk run get sched-s2-2026-01-01T08:00:00Z --json
    sk run get nope
    sk run start report --idempotency-key k1
    sk run start report --idempotency-key k1 --json
    sk run start report --input '{"day": 3}' --idempotency-key k2 --json
    sk run start report --input '[1]'
    sk run start report --idempotency-key ''
    sk run cancel api-report-key-k1
    sk run cancel api-report-key-k1
    sk run cancel nope --json
    sk run get api-report-key-k1
    sk workflow list
    sk workflow list --json
    sk workflow list --names
    # -- notifiers
    sk notify apply "$tmp/notify.yaml"
    sk notify apply "$tmp/bad-notify.yaml"
    sk notify list
    sk notify list --json
    sk notify list --names
    sk notify get ops-hook
    sk notify get nope
    sk notify delete mail
    sk notify delete mail
    sk notify list
    sk notify log
    sk notify log ops-hook -n 5 --json
    sk notify log --before 1 --limit 2
    sk notify log --limit 0
    sk notify log mail
    sk apply "$tmp/ntf-apply1.yaml"
    sk apply "$tmp/ntf-apply1.yaml" --json
    sk notify list
    sk apply "$tmp/ntf-apply2.yaml" --prune
    sk apply "$tmp/ntf-rival.yaml"
    sk notify list --json
    # -- delete, and the events of it all
    sk schedule delete s3
    sk schedule delete s3
    sk schedule delete s2 --json
    sk schedule delete s6
    sk schedule get s3
    sk events --limit 5
    sk events --after 5 --limit 3 --json
    sk events --after 100000
    sk events --actor nobody --limit 2
}

# Replace what differs from one run to the next: instants of "now" (with
# their microseconds), also in the ids and the cursors made of them; and
# who made a change, which is the mode's: on the database the Unix user
# (code:APP for sked apply), through a server without tokens anonymous.
# Event ids are kept: both databases had the same history.
me=$(id -un)
normalize() {
    sed -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z/NOW/g' \
        -e 's/[0-9]{16}:/NOW:/g' \
        -e "s/\"actor\": ?\"(user:$me|anonymous|code:[a-z0-9._-]+)\"/\"actor\":\"WHO\"/g" \
        -e "s/  (user:$me|anonymous|code:[a-z0-9._-]+)  \{/  WHO  {/" "$1"
}

# ---- 1. the same scenario in both modes -----------------------------------
db1=sqlite:$tmp/direct.db
db2=sqlite:$tmp/remote.db
# The direct database's workflows are registered by a server that stops.
start_http reg --db "$db1" --workers 0 --workflows "$tmp/reg.yaml" --listen 127.0.0.1:0 ||
    fail setup.reg "$(cat "$tmp/reg.log")"
stop_server reg TERM
start_http r --db "$db2" --workers 0 --workflows "$tmp/reg.yaml" --listen 127.0.0.1:0 ||
    fail setup.remote "$(cat "$tmp/r.log")"
url=${url_r:-http://127.0.0.1:1}
mode="--db $db1" log=$tmp/direct.txt scenario
mode="--server $url" log=$tmp/remote.txt scenario
normalize "$tmp/direct.txt" >"$tmp/direct.norm"
normalize "$tmp/remote.txt" >"$tmp/remote.norm"
if diff -u "$tmp/direct.norm" "$tmp/remote.norm" >"$tmp/diff"; then
    pass
else
    fail scenario.same "the transcripts differ:
$(head -c 6000 "$tmp/diff")"
fi
# The scenario did what it says (not two identical failures).
n=$(grep -c '^\$ sked' "$tmp/direct.norm")
check scenario.commands "$n" 174
check scenario.exits "$(grep '^exit ' "$tmp/remote.norm" | sort | uniq -c |
    awk '{printf "%s:%s ", $3, $1}')" "0:117 1:22 2:6 3:18 4:11 "
grep -q '^created schedule s1 (active); next: 2027-01-01T09:00:00+01:00$' \
    "$tmp/remote.norm" && pass || fail scenario.create "no created line"
grep -q '^stderr: sked: cannot trigger schedule "s1": ' "$tmp/remote.norm" &&
    pass || fail scenario.conflict "no conflict line"
grep -q '^backfill of s2: 5 created, 0 skipped (already existed)$' \
    "$tmp/remote.norm" && pass || fail scenario.backfill "no backfill line"
grep -q '^stderr: sked: invalid --timezone "Europe/Pariss": timezone: ' \
    "$tmp/remote.norm" && pass || fail scenario.invalid "no timezone error"

# The scenario compares every command that takes --server, with each of
# its options: a command or an option added without a line here fails.
# Only --follow, which never ends, is compared apart (4).
commands() { # the commands of "sked [GROUP] --help"
    "$bin" "$@" --help | awk '/^Commands:/ { f = 1; next }
        f && /^  [a-z]/ { print $1; next } f { exit }'
}
leaves=
for c in $(commands); do
    # sked mcp's two modes are compared by test_mcp_stdio.sh.
    case $c in help | mcp) continue ;; esac
    subs=$(commands "$c")
    if [ -n "$subs" ]; then
        for s in $subs; do leaves="$leaves $c:$s"; done
    else
        leaves="$leaves $c"
    fi
done
for leaf in $leaves; do
    cmd=${leaf/:/ }
    help=$("$bin" $cmd --help)
    case $help in *--server*) ;; *) continue ;; esac
    lines=$(grep -E "^\\\$ sked $cmd( |\$)" "$tmp/direct.txt")
    if [ -z "$lines" ]; then
        fail "scenario.every.$leaf" "no line of the scenario runs sked $cmd"
        continue
    fi
    for opt in $(printf '%s\n' "$help" |
        sed -nE 's/^  (-[a-z], )?(--[a-z-]+).*/\2/p' | sort -u); do
        case $opt in --db | --server | --help | --follow) continue ;; esac
        short=$(printf '%s\n' "$help" | sed -nE "s/^  (-[a-z]), $opt .*/\\1/p")
        if ! printf '%s\n' "$lines" | grep -qE -- " ($opt${short:+|$short})( |\$)"; then
            fail "scenario.every.$leaf$opt" "no line runs sked $cmd $opt"
        fi
    done
    pass
done

# ---- 2. where the server is -----------------------------------------------
"$bin" --server "$url" schedule get s1 --json >"$tmp/a" 2>&1
SKED_SERVER=$url "$bin" schedule get s1 --json >"$tmp/b" 2>&1
"$bin" schedule get s1 --json --server "$url/" >"$tmp/c" 2>&1
SKED_SERVER=$url "$bin" --db "$db1" schedule get s1 --json >"$tmp/d" 2>&1
check where.env "$(cmp -s "$tmp/a" "$tmp/b" && echo same)" same
check where.slash "$(cmp -s "$tmp/a" "$tmp/c" && echo same)" same
grep -q '"name": "s1"' "$tmp/a" && pass || fail where.get "$(cat "$tmp/a")"
# --db given wins over $SKED_SERVER: the direct database's s1 (priority 5
# on both, but its updated_at is the direct one's).
check where.db_wins "$(grep updated_at "$tmp/d")" \
    "$("$bin" --db "$db1" schedule get s1 --json | grep updated_at)"
"$bin" --db "$db1" schedule list --server "$url" >"$tmp/o" 2>"$tmp/e"
check where.both.rc "$?" 2
check where.both.msg "$(cat "$tmp/e")" \
    "sked: give --db or --server, not both (see 'sked schedule list --help')"
"$bin" --server http://127.0.0.1:1 run list >"$tmp/o" 2>"$tmp/e"
check where.down.rc "$?" 1
check where.down.msg "$(cat "$tmp/e")" \
    "sked: cannot reach http://127.0.0.1:1: Connection refused"

# ---- 3. a token -----------------------------------------------------------
printf 's3cret-token-of-the-test\n' >"$tmp/token"
start_http t --db "$db2" --workers 0 --token-file "$tmp/token" --listen 127.0.0.1:0 ||
    fail token.start "$(cat "$tmp/t.log")"
SKED_TOKEN=s3cret-token-of-the-test "$bin" --server "$url_t" schedule get s1 \
    >"$tmp/o" 2>"$tmp/e"
check token.good "$?:$(head -1 "$tmp/o")" "0:name                   s1"
SKED_TOKEN=wrong "$bin" --server "$url_t" schedule get s1 >"$tmp/o" 2>"$tmp/e"
check token.wrong.rc "$?" 1
check token.wrong.msg "$(cat "$tmp/e")" \
    "sked: $url_t: a valid bearer token is required (Authorization: Bearer TOKEN)"
# Tokens of the right length that differ in one byte only, first, middle
# or last: each is refused like any wrong token.
good=s3cret-token-of-the-test
for at in 0 $((${#good} / 2)) $((${#good} - 1)); do
    c=${good:at:1}
    [ "$c" = x ] && r=y || r=x
    bad=${good:0:at}$r${good:at+1}
    SKED_TOKEN=$bad "$bin" --server "$url_t" schedule get s1 >"$tmp/o" 2>"$tmp/e"
    check "token.same_length.$at" "$?:$(cat "$tmp/e")" \
        "1:sked: $url_t: a valid bearer token is required (Authorization: Bearer TOKEN)"
done
"$bin" --server "$url_t" schedule trigger s1 >"$tmp/o" 2>"$tmp/e"
check token.none "$?:$(wc -l <"$tmp/e")" "1:1"
stop_server t TERM

# ---- 4. events --follow -----------------------------------------------------
# follow_check NAME ARGS...: follow in the background, make an event, see
# it printed, then SIGINT: exit 0.
follow_check() {
    local n=$1 db=$2 f=$tmp/follow_$1 pid i
    shift 2
    # From the last event on: --after, so that nothing races the start.
    "$bin" events --follow --json "$@" \
        --after "$(q "$db" 'select max(id) from events')" >"$f" 2>"$f.err" &
    pid=$!
    sleep 1
    "$bin" schedule pause s1 "$@" >/dev/null 2>&1
    for i in $(seq 100); do
        grep -q '"type":"schedule.paused"' "$f" && break
        sleep 0.1
    done
    "$bin" schedule resume s1 "$@" >/dev/null 2>&1
    for i in $(seq 100); do
        grep -q '"type":"schedule.resumed"' "$f" && break
        sleep 0.1
    done
    kill -INT "$pid"
    wait "$pid"
    check "follow.$n.rc" "$?" 0
    check "follow.$n.events" "$(grep -o '"type":"schedule\.[a-z]*"' "$f" |
        tr '\n' ' ')" '"type":"schedule.paused" "type":"schedule.resumed" '
    check "follow.$n.stderr" "$(cat "$f.err")" ""
}
follow_check remote "$db2" --server "$url"
follow_check direct "$db1" --db "$db1"
# Human lines: AT TYPE SUBJECT ACTOR PAYLOAD (without its actor), and
# --after resumes after an id.
"$bin" events --server "$url" --after 2 --limit 1 >"$tmp/o" 2>/dev/null
grep -Eq '^[0-9T:.Z-]+  schedule\.created  s3  anonymous  \{"name":"s3",' "$tmp/o" &&
    ! grep -q '"actor"' "$tmp/o" &&
    pass || fail events.human "$(cat "$tmp/o")"

# ---- 5. a backfill's progress bar over the API -------------------------------
if script -qec true /dev/null >/dev/null 2>&1; then
    "$bin" schedule create etl --every 1h --anchor 2025-01-01T00:00:00Z \
        --name bar --server "$url" >/dev/null
    script -qec "'$bin' schedule backfill bar --server '$url' \
        --start 2025-01-01T00:00:00Z --end 2025-03-01T00:00:00Z" \
        /dev/null >"$tmp/bar" 2>&1
    # 59 days of hours, less the first: 1415 occurrences.
    grep -q 'backfill \[########################################\] 100% 1415/1415' \
        "$tmp/bar" && pass || fail bar.drawn "$(tr '\r' '\n' <"$tmp/bar" | tail -3)"
    grep -q 'backfill of bar: 1415 created, 0 skipped' "$tmp/bar" && pass ||
        fail bar.counts "$(tr '\r' '\n' <"$tmp/bar" | tail -2)"
    # Drawn at 0, then after each of 40 chunks of at most 36.
    check bar.chunks "$(tr '\r' '\n' <"$tmp/bar" | grep -c '^backfill \[')" 41
    check bar.runs "$(q "$db2" "select count(*) from runs where schedule = 'bar'")" \
        1415
fi

stop_server r TERM
check stop "$stop_rc" 0
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
