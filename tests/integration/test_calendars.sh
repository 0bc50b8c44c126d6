#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Calendars through every door they have (docs/calendars.md): the API's
# /api/v1/calendars (create, put, get, list, delete, days), and "sked
# calendar" in direct mode and through the server, on one database.
#
# What a user would notice: a calendar's days are those of its dates,
# rules, iCalendar file and includes with the observed days beside them
# (checked against python3-dateutil's rrule over ten years, and its
# business days against the weekdays it names); every bad input is
# refused naming the field and position ("dates[1]", "rules[0]", "ics"
# with its line, "include[0]") and writes nothing; a cycle of includes
# and the delete of an included calendar are refused (409); each change
# is an event; the CLI prints in both modes what the API answers.
#
# Usage: test_calendars.sh [sqlite|pg]. Env: SKED_BIN.
# Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"
unset SKED_DB SKED_SERVER SKED_TOKEN
mode_db cal.db

start_http a --db "$db" --workers 0 || {
    cat "$tmp/a.log"
    exit 1
}
api=$url_a/api/v1/calendars

# call METHOD PATH [BODY]: print "STATUS BODY" of the API's answer.
call() {
    curl -s -o "$tmp/body" -w '%{http_code}' -X "$1" \
        -H 'Content-Type: application/json' ${3:+-d "$3"} "$url_a$2" >"$tmp/code"
    echo "$(cat "$tmp/code") $(cat "$tmp/body")"
}
# jq_py EXPR: evaluate EXPR on the JSON of stdin (as j).
jq_py() { "$py" -c "import json,sys; j=json.load(sys.stdin); print($1)"; }
# status_field METHOD PATH BODY: "STATUS FIELD" of a refusal.
status_field() {
    local r
    r=$(call "$@")
    echo "${r%% *} $(echo "${r#* }" | jq_py 'j["error"].get("field")')"
}
count() { q "$db" 'SELECT count(*) FROM calendars'; }

# ---- create, read, the days -------------------------------------------
us='{"name":"us","rules":["FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1",
"FREQ=YEARLY;BYMONTH=1;BYDAY=3MO","FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO",
"FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4","FREQ=YEARLY;BYMONTH=9;BYDAY=1MO",
"FREQ=YEARLY;BYMONTH=11;BYDAY=4TH","FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25"],
"observed":"nearest_weekday","description":"US holidays"}'
r=$(call POST /api/v1/calendars "$us")
check "create: 201" "${r%% *}" 201
check "create: answer" "$(echo "${r#* }" | jq_py 'j["name"], len(j["rules"]), j["observed"], j["weekdays"], j["source"]')" \
    "us 7 nearest_weekday ['mon', 'tue', 'wed', 'thu', 'fri'] api"
check "create again: 409" "$(status_field POST /api/v1/calendars "$us")" "409 name"

# The oracle: dateutil's rrule for each rule, and the observed days.
"$py" - "$tmp/want" "$tmp/want_biz" <<'PY'
import datetime as dt, sys
from dateutil.rrule import rrulestr
rules = ["FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1", "FREQ=YEARLY;BYMONTH=1;BYDAY=3MO",
         "FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO", "FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4",
         "FREQ=YEARLY;BYMONTH=9;BYDAY=1MO", "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH",
         "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25"]
lo, hi = dt.date(2020, 1, 1), dt.date(2029, 12, 31)
days = set()
for r in rules:
    for d in rrulestr(r, dtstart=dt.datetime(1970, 1, 1)).between(
            dt.datetime(2019, 12, 1), dt.datetime(2030, 2, 1), inc=True):
        d = d.date()
        days.add(d)
        if d.weekday() == 5: days.add(d - dt.timedelta(1))
        if d.weekday() == 6: days.add(d + dt.timedelta(1))
days = sorted(d for d in days if lo <= d <= hi)
open(sys.argv[1], "w").write("".join(f"{d}\n" for d in days))
biz, d = [], lo
while d <= hi:
    if d.weekday() < 5 and d not in days: biz.append(d)
    d += dt.timedelta(1)
open(sys.argv[2], "w").write("".join(f"{d}\n" for d in biz))
PY
call GET "/api/v1/calendars/us/days?from=2020-01-01&to=2029-12-31" >/dev/null
jq_py '"\n".join(d["date"] for d in j["days"])' <"$tmp/body" >"$tmp/got"
check "days = dateutil, 2020-2029 ($(wc -l <"$tmp/want") days)" \
    "$(diff "$tmp/want" "$tmp/got" >/dev/null && echo same)" same
"$bin" calendar days us --from 2020-01-01 --to 2029-12-31 --business \
    --db "$db" >"$tmp/got_biz" 2>&1
check "business days = weekdays not in the set ($(wc -l <"$tmp/want_biz"))" \
    "$(diff "$tmp/want_biz" "$tmp/got_biz" >/dev/null && echo same)" same
"$bin" calendar days us --from 2020-01-01 --to 2029-12-31 --business \
    --server "$url_a" >"$tmp/got_biz_r" 2>&1
check "business days: remote = direct" \
    "$(cmp -s "$tmp/got_biz" "$tmp/got_biz_r" && echo same)" same
check "days: a period too long" \
    "$(status_field GET "/api/v1/calendars/us/days?from=2020-01-01&to=2031-01-01")" \
    "422 to"
check "days: a bad date" \
    "$(status_field GET "/api/v1/calendars/us/days?from=2020-13-01")" "400 from"

# A Sunday-to-Thursday week: Friday and Saturday are never business days.
"$bin" calendar create gulf --weekdays sun-thu --date 2026-12-02 \
    --db "$db" >/dev/null 2>&1
check "cli create --weekdays sun-thu" "$?" 0
"$bin" calendar days gulf --from 2026-11-29 --to 2026-12-05 --business \
    --server "$url_a" >"$tmp/out" 2>&1
check "sun-thu business days" "$(tr '\n' ' ' <"$tmp/out")" \
    "2026-11-29 2026-11-30 2026-12-01 2026-12-03 "

# ---- includes, cycles, delete ------------------------------------------
check "include: unknown" \
    "$(status_field PUT /api/v1/calendars/all '{"include":["us","nope"]}')" \
    "404 include[1]"
r=$(call PUT /api/v1/calendars/all '{"include":["us","gulf"]}')
check "put: new is 201" "${r%% *}" 201
r=$(call GET "/api/v1/calendars/all/days?from=2026-12-01&to=2026-12-31")
check "include: the union" "$(echo "${r#* }" | jq_py '" ".join(d["date"] for d in j["days"])')" \
    "2026-12-02 2026-12-25"
r=$(call PUT /api/v1/calendars/all '{"include":["us"]}')
check "put: replace is 200" "${r%% *}" 200
check "cycle: refused" \
    "$(status_field PUT /api/v1/calendars/us "$(echo "$us" | "$py" -c 'import json,sys; j=json.load(sys.stdin); j["include"]=["all"]; del j["name"]; print(json.dumps(j))')")" \
    "409 include[0]"
check "cycle: us unchanged" "$(call GET /api/v1/calendars/us | cut -d' ' -f2- | jq_py 'j["include"]')" "[]"
check "self include: refused" \
    "$(status_field PUT /api/v1/calendars/gulf '{"include":["gulf"]}')" "409 include[0]"
check "delete included: 409" "$(status_field DELETE /api/v1/calendars/us)" "409 name"
r=$(call DELETE /api/v1/calendars/all)
check "delete: 204" "${r%% *}" 204
r=$(call DELETE /api/v1/calendars/all)
check "delete again: 204" "${r%% *}" 204
check "get deleted: 404" "$(call GET /api/v1/calendars/all | cut -d' ' -f1)" 404

# ---- bad input: the field and position, and nothing written -----------
n0=$(count)
bad() { # NAME BODY WANT ("STATUS FIELD")
    check "bad: $1" "$(status_field POST /api/v1/calendars "$2")" "$3"
}
bad "date shape" '{"name":"b","dates":["2026-01-01","2026/02/01"]}' "422 dates[1]"
bad "no such day" '{"name":"b","dates":["2026-02-30"]}' "422 dates[0]"
bad "out of range" '{"name":"b","dates":["1969-12-31"]}' "422 dates[0]"
bad "rule syntax" '{"name":"b","rules":["FREQ=YEARLY;BYMONTH=13"]}' "422 rules[0]"
bad "BYSETPOS" '{"name":"b","rules":["FREQ=MONTHLY;BYDAY=MO;BYSETPOS=400"]}' "422 rules[0]"
bad "hourly rule" '{"name":"b","rules":["FREQ=HOURLY"]}' "422 rules[0]"
bad "never" '{"name":"b","rules":["FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"]}' "422 rules[0]"
bad "observed" '{"name":"b","observed":"friday"}' "422 observed"
bad "weekday" '{"name":"b","weekdays":["mon","fry"]}' "422 weekdays[1]"
bad "no weekday" '{"name":"b","weekdays":[]}' "422 weekdays"
bad "unknown key" '{"name":"b","holidays":[]}' "400 holidays"
bad "read-only" '{"name":"b","created_at":"2026-01-01T00:00:00Z"}' "422 created_at"
bad "name" '{"name":"a/b"}' "422 name"
bad "name dots" '{"name":".."}' "422 name"
bad "type" '{"name":"b","dates":"2026-01-01"}' "422 dates"
bad "ics malformed" '{"name":"b","ics":"BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART;VALUE=DATE:20261301\nEND:VEVENT\nEND:VCALENDAR\n"}' "422 ics"
"$py" -c 'print("X" * (1 << 20 | 1))' >"$tmp/huge.ics"
"$bin" calendar create huge --ics "$tmp/huge.ics" --db "$db" >/dev/null 2>"$tmp/err"
check "cli: huge ics refused" "$? $(grep -c 'larger than' "$tmp/err")" "1 1"
printf 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:caf\xe9\r\nDTSTART;VALUE=DATE:20260101\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n' >"$tmp/latin1.ics"
"$bin" calendar create latin --ics "$tmp/latin1.ics" --db "$db" >/dev/null 2>"$tmp/err"
check "cli: non-UTF-8 ics refused, naming ics" "$? $(grep -c 'ics' "$tmp/err")" "1 1"
check "refusals wrote nothing" "$(count)" "$n0"

# ---- an iCalendar file ------------------------------------------------
cat >"$tmp/office.ics" <<'EOF'
BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//example//office//EN
BEGIN:VEVENT
UID:1
SUMMARY:Company day, folded
 over two lines
DTSTART;VALUE=DATE:20260615
DTEND;VALUE=DATE:20260618
END:VEVENT
BEGIN:VEVENT
UID:2
DTSTART;VALUE=DATE:20260105
RRULE:FREQ=MONTHLY;BYDAY=1MO;COUNT=4
EXDATE;VALUE=DATE:20260302
RDATE;VALUE=DATE:20260310
END:VEVENT
END:VCALENDAR
EOF
"$bin" calendar create office --ics "$tmp/office.ics" --server "$url_a" \
    >/dev/null 2>"$tmp/err"
check "cli remote: create --ics" "$?" 0
"$bin" calendar days office --from 2026-01-01 --to 2026-12-31 --db "$db" >"$tmp/out" 2>&1
check "ics: events, RRULE, EXDATE, RDATE, a three-day event" \
    "$(tr '\n' ' ' <"$tmp/out")" \
    "2026-01-05 2026-02-02 2026-03-10 2026-04-06 2026-06-15 2026-06-16 2026-06-17 "

# ---- the CLI: update, get, list, delete in both modes -------------------
"$bin" calendar update gulf --date 2026-12-03 --date 2026-12-04 --server "$url_a" >/dev/null 2>&1
check "cli update: the dates replaced" \
    "$("$bin" calendar get gulf --json --db "$db" | jq_py 'j["dates"], j["weekdays"]')" \
    "['2026-12-03', '2026-12-04'] ['mon', 'tue', 'wed', 'thu', 'sun']"
"$bin" calendar update nope --date 2026-12-03 --db "$db" >/dev/null 2>&1
check "cli update unknown: exit 3" "$?" 3
"$bin" calendar create bad --date 2026-02-30 --db "$db" >/dev/null 2>"$tmp/err"
check "cli bad date: exit 1, field and byte" "$? $(cat "$tmp/err")" \
    '1 sked: invalid calendar "bad": dates[0]: 2026-02 has no day 30 (at byte 9)'
check "cli list: remote = direct" \
    "$("$bin" calendar list --json --db "$db" | jq_py '[c["name"] for c in j["calendars"]]') $("$bin" calendar list --json --server "$url_a" | jq_py '[c["name"] for c in j["calendars"]]')" \
    "['gulf', 'office', 'us'] ['gulf', 'office', 'us']"
"$bin" calendar delete office --server "$url_a" 2>/dev/null
check "cli delete" "$?$("$bin" calendar list --db "$db" | grep -c office)" "00"
"$bin" calendar create wrap --include us --db "$db" >/dev/null 2>&1
"$bin" calendar delete us --db "$db" 2>"$tmp/err"
check "cli delete refused while included: exit 4" "$? $(cat "$tmp/err")" \
    '4 sked: cannot delete calendar us: calendar "wrap" includes it'
"$bin" calendar delete us --server "$url_a" 2>"$tmp/err"
check "cli remote delete refused: exit 4" "$?" 4

# ---- the workflows file's calendars ---------------------------------------
cat >"$tmp/wf.yaml" <<'EOF'
app: office
calendars:
  closed:
    include: [federal]
    dates: [2026-12-24, 2026-12-31]
    weekdays: mon-fri
  federal:
    rules:
      - FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25
      - FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1
    observed: nearest_weekday
EOF
start_http f --db "$db" --workflows "$tmp/wf.yaml" --workers 0 ||
    fail "file: server" "$(cat "$tmp/f.log")"
check "file: code calendars of the app, a later one included" \
    "$(q "$db" "SELECT name || ':' || source || ':' || app FROM calendars WHERE source = 'code' ORDER BY name" | tr '\n' ' ')" \
    "closed:code:office federal:code:office "
check "file: the days of both" \
    "$("$bin" calendar days closed --from 2026-12-20 --to 2027-01-02 --db "$db" | tr '\n' ' ')" \
    "2026-12-24 2026-12-25 2026-12-31 2027-01-01 "
stop_server f TERM
# The same names under another app, or over an API calendar, are refused.
sed 's/^app: office/app: other/' "$tmp/wf.yaml" >"$tmp/other.yaml"
start_server g --db "$db" --workflows "$tmp/other.yaml" --workers 0
wait "$pid_g"
check "file: another app's calendars are refused" \
    "$? $(grep -c 'belongs to the app office' "$tmp/g.log")" "4 1"
printf 'calendars:\n  bad:\n    dates: [2026-01-01, 2026-02-30]\n' >"$tmp/bad.yaml"
start_server h --db "$db" --workflows "$tmp/bad.yaml" --workers 0
wait "$pid_h"
check "file: a bad date, at its line and column, with its field" \
    "$? $(grep -c 'bad.yaml:3:5: calendars.bad.dates: dates\[1\]: 2026-02 has no day 30' "$tmp/h.log")" "1 1"
check "file: nothing written of a refused file" \
    "$(q "$db" "SELECT count(*) FROM calendars WHERE name = 'bad' OR app = 'other'")" 0

# ---- events -------------------------------------------------------------
check "events: created, updated, deleted" \
    "$(q "$db" "SELECT type || ':' || subject FROM events WHERE type LIKE 'calendar.%' ORDER BY id" | tr '\n' ' ')" \
    "calendar.created:us calendar.created:gulf calendar.created:all calendar.updated:all calendar.deleted:all calendar.created:office calendar.updated:gulf calendar.deleted:office calendar.created:wrap calendar.created:federal calendar.created:closed "

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
