#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# RRULE schedules and the DST matrix as a user meets them (SPEC 12):
# "sked schedule create --rrule", the API's "rrule", preview, a server
# firing one, and every refusal naming the field.
#
# The oracle is python3-dateutil's rrule for the wall-clock times and the
# zone rules of Python's zoneinfo for the instants, with each DST policy
# applied by its definition: a local time in a gap fires at the gap's end
# (shift) or not at all (skip); a repeated one on its first pass, its
# second, or both. Generated rules (seeded) in zones with 1-hour,
# 30-minute and midnight changes are compared occurrence by occurrence
# with "sked schedule preview".
#
# Usage: test_rrule_schedules.sh [sqlite|pg]. Env: SKED_BIN.
# Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-sqlite}
. "$here/server_lib.sh"
unset SKED_DB SKED_SERVER SKED_TOKEN
mode_db rrule.db
"$py" -c 'import dateutil, zoneinfo' 2>/dev/null || {
    echo "python3-dateutil is missing"
    exit 77
}

cat >"$tmp/wf.yaml" <<'EOF'
workflows:
  tick:
    steps:
      - name: one
        sh: 'true'
EOF

# ---- generated rules against the oracle ---------------------------------
"$py" - "$tmp/cases" <<'PY'
import random, sys
rnd = random.Random(18)
zones = ["Europe/Paris", "America/New_York", "Australia/Lord_Howe",
         "America/Santiago", "Asia/Beirut", "Pacific/Chatham", "UTC"]
policies = ["once", "skip", "last", "both", "skip,both", "skip,last"]
out = []
for i in range(90):
    z = rnd.choice(zones)
    freq = rnd.choice(["DAILY", "DAILY", "WEEKLY", "MONTHLY", "HOURLY"])
    parts = ["FREQ=" + freq]
    if rnd.random() < 0.4:
        parts.append("INTERVAL=%d" % rnd.randint(2, 3))
    if freq == "WEEKLY":
        parts.append("BYDAY=" + ",".join(sorted(rnd.sample(
            ["MO", "TU", "WE", "TH", "FR", "SA", "SU"], rnd.randint(1, 3)))))
    if freq == "MONTHLY":
        parts.append(rnd.choice(["BYMONTHDAY=%d" % rnd.randint(1, 28),
                                 "BYDAY=%d%s" % (rnd.choice([1, 2, -1]),
                                                 rnd.choice(["SU", "FR"]))]))
    if freq != "HOURLY":
        parts.append("BYHOUR=" + ",".join(str(h) for h in sorted(
            rnd.sample(range(0, 5), rnd.randint(1, 2)))))
        parts.append("BYMINUTE=%d" % rnd.choice([0, 15, 30, 45]))
    parts.append("BYSECOND=0")
    if rnd.random() < 0.3:
        parts.append("COUNT=%d" % rnd.randint(3, 30))
    # Starts in the weeks before a change of the zone, in 2027 and 2028.
    month = rnd.choice([2, 3, 4, 9, 10, 11])
    dtstart = "%04d%02d%02dT%02d%02d00" % (rnd.choice([2027, 2028]), month,
                                          rnd.randint(1, 28), rnd.randint(0, 23),
                                          rnd.choice([0, 30]))
    out.append("\t".join([z, rnd.choice(policies), dtstart, ";".join(parts)]))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY

# oracle ZONE POLICY DTSTART RULE N: the first N instants, RFC 3339 UTC.
cat >"$tmp/oracle.py" <<'PY'
import datetime as dt, sys
from dateutil.rrule import rrulestr
from zoneinfo import ZoneInfo
zone, policy, dtstart, rule, n = sys.argv[1:6]
n = int(n)
tz = ZoneInfo(zone)
UTC = dt.timezone.utc
gap = "skip" if policy.startswith("skip") else "shift"
fold = "last" if "last" in policy else "both" if "both" in policy else "first"
start = dt.datetime.strptime(dtstart, "%Y%m%dT%H%M%S")

def instants(wall):
    """The UTC instants whose local time is WALL: 0, 1 or 2."""
    got = set()
    for f in (0, 1):
        u = wall.replace(tzinfo=tz, fold=f).astimezone(UTC)
        if u.astimezone(tz).replace(tzinfo=None) == wall:
            got.add(u)
    return sorted(got)

def gap_end(wall):
    """The instant the gap holding WALL ends: the change of offset."""
    lo = wall.replace(tzinfo=tz, fold=1).astimezone(UTC)
    hi = wall.replace(tzinfo=tz, fold=0).astimezone(UTC)
    lo, hi = min(lo, hi), max(lo, hi)
    while (hi - lo) > dt.timedelta(seconds=1):
        mid = lo + (hi - lo) / 2
        if mid.astimezone(tz).utcoffset() == lo.astimezone(tz).utcoffset():
            lo = mid
        else:
            hi = mid
    return hi.replace(microsecond=0)

out = []
for wall in rrulestr(rule, dtstart=start):
    got = instants(wall)
    if not got:
        if gap == "shift":
            out.append(gap_end(wall))
    elif len(got) == 1:
        out.append(got[0])
    else:
        out += {"first": got[:1], "last": got[1:], "both": got}[fold]
    if len(set(out)) >= n + 4:
        break
seen = []
for u in out:          # a gap's times collapse into one firing
    if u not in seen:
        seen.append(u)
for u in seen[:n]:
    print(u.strftime("%Y-%m-%dT%H:%M:%SZ"))
PY

i=0 bad=0
while IFS=$'\t' read -r zone policy dtstart rule; do
    i=$((i + 1))
    value="DTSTART:$dtstart"$'\n'"RRULE:$rule"
    "$bin" schedule create tick --name "g$i" --rrule "$value" \
        --timezone "$zone" --dst "$policy" --db "$db" >/dev/null 2>"$tmp/err" ||
        {
            # A rule whose occurrences are all past is refused; none is here.
            fail "generated $i created" "$(cat "$tmp/err")"
            continue
        }
    "$bin" schedule preview "g$i" -n 12 --after 2027-01-01T00:00:00Z \
        --db "$db" 2>&1 | awk '{print $1}' >"$tmp/got"
    "$py" "$tmp/oracle.py" "$zone" "$policy" "$dtstart" "$rule" 12 >"$tmp/want"
    if cmp -s "$tmp/got" "$tmp/want"; then
        pass
    else
        bad=$((bad + 1))
        [ $bad -le 5 ] && fail "generated $i: $zone $policy $dtstart $rule" \
            "$(diff "$tmp/want" "$tmp/got" | head -6 | tr '\n' ' ')"
    fi
done <"$tmp/cases"
[ $bad -gt 5 ] && fail "generated" "$bad of $i disagree"
echo "generated rules compared with dateutil: $i"

# ---- the API: what is shown, and every refusal ---------------------------
start_http a --db "$db" --workers 0 || {
    cat "$tmp/a.log"
    exit 1
}
post() { # BODY: "STATUS FIELD" of the answer (the name on success)
    curl -s -o "$tmp/body" -w '%{http_code}' -H 'Content-Type: application/json' \
        -d "$1" "$url_a/api/v1/schedules" >"$tmp/code"
    echo "$(cat "$tmp/code") $("$py" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["error"].get("field") if "error" in j else j["name"]+" "+str(j["rrule"])+" "+j["dst"])' "$tmp/body")"
}
check "api create" "$(post '{"name":"fri","workflow":"tick","rrule":"FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=9","timezone":"Europe/Paris","dst":"both,skip"}')" \
    "201 fri FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;BYHOUR=9 skip,both"
occ=$(curl -s "$url_a/api/v1/schedules/fri/occurrences?n=3" |
    "$py" -c 'import json,sys,datetime as d; o=json.load(sys.stdin)["occurrences"]; t=[d.datetime.fromisoformat(x["local"]) for x in o]; print(all(x.weekday()==4 and x.hour==9 and x.minute==0 for x in t), [(t[k+1]-t[k]).days for k in range(len(t)-1)])')
check "api occurrences: Fridays at 09:00, two weeks apart" "$occ" "True [14, 14]"
# The rule in words, with what its start (the creation, in the zone) fills
# in: the date in Paris, and the hour in Kiritimati (UTC+14, a day ahead
# of UTC for ten hours a day).
words() { # NAME: "rrule_words|expected start" of schedule NAME
    curl -s "$url_a/api/v1/schedules/$1" | "$py" -c '
import json, sys, datetime as d, zoneinfo
j = json.load(sys.stdin)
t = d.datetime.fromisoformat(j["created_at"].replace("Z", "+00:00"))
local = t.astimezone(zoneinfo.ZoneInfo(j["timezone"]))
print("%s|%s" % (j["rrule_words"], local.strftime(sys.argv[1])))' "$2"
}
w=$(words fri "%Y-%m-%d")
fri_words=${w%%|*}
check "api rrule_words" "$fri_words" \
    "At 09:00, every 2 weeks on Friday, starting ${w#*|}"
check "api create hourly" "$(post '{"name":"kiri","workflow":"tick","rrule":"FREQ=HOURLY;INTERVAL=5;BYMINUTE=30","timezone":"Pacific/Kiritimati"}')" \
    "201 kiri FREQ=HOURLY;INTERVAL=5;BYMINUTE=30 once"
w=$(words kiri "%Y-%m-%d %H:00")
check "api rrule_words in the zone's hour" "${w%%|*}" \
    "Every 5 hours, at minute 30, starting ${w#*|}"
check "cli rrule_words" "$("$bin" schedule get fri --db "$db" |
    sed -n 's/^rrule_words  *//p')" "$fri_words"
check "bad: syntax" "$(post '{"name":"b","workflow":"tick","rrule":"FREQ=WEEKLY;BYDAY=XX"}')" "422 rrule"
check "bad: BYSETPOS" "$(post '{"name":"b","workflow":"tick","rrule":"FREQ=MONTHLY;BYDAY=MO;BYSETPOS=400"}')" "422 rrule"
check "bad: never" "$(post '{"name":"b","workflow":"tick","rrule":"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"}')" "422 rrule"
check "bad: all past" "$(post '{"name":"b","workflow":"tick","rrule":"DTSTART:20200101T000000\nRRULE:FREQ=DAILY;COUNT=2"}')" "422 rrule"
check "bad: another zone" "$(post '{"name":"b","workflow":"tick","timezone":"Europe/Paris","rrule":"DTSTART;TZID=Asia/Tokyo:20300101T090000\nRRULE:FREQ=DAILY"}')" "422 rrule"
check "bad: two specs" "$(post '{"name":"b","workflow":"tick","cron":"* * * * *","rrule":"FREQ=DAILY"}')" "422 rrule"
check "bad: dst conflict" "$(post '{"name":"b","workflow":"tick","rrule":"FREQ=DAILY","dst":"shift,skip"}')" "422 dst"
check "bad: calendar_days with cron" "$(post '{"name":"b","workflow":"tick","cron":"0 9 * * *","calendar_days":true}')" "422 calendar_days"
check "bad: calendar_days of hours" "$(post '{"name":"b","workflow":"tick","every":"36h","calendar_days":true}')" "422 every"
check "refusals wrote nothing" "$(q "$db" "SELECT count(*) FROM schedules WHERE name = 'b'")" 0

# calendar_days: 09:00 local every day across the spring change, where
# a plain 1d interval moves to 10:00.
"$bin" schedule create tick --name days --every 1d --calendar-days \
    --anchor 2027-03-26T08:00:00Z --timezone Europe/Paris --db "$db" >/dev/null 2>&1
"$bin" schedule create tick --name hours --every 1d \
    --anchor 2027-03-26T08:00:00Z --timezone Europe/Paris --db "$db" >/dev/null 2>&1
check "calendar_days keeps 09:00 local" \
    "$("$bin" schedule preview days -n 4 --after 2027-03-26T08:00:00Z --db "$db" | awk '{print substr($2, 12, 5)}' | tr '\n' ' ')" \
    "09:00 09:00 09:00 09:00 "
check "a duration moves to 10:00" \
    "$("$bin" schedule preview hours -n 4 --after 2027-03-26T08:00:00Z --db "$db" | awk '{print substr($2, 12, 5)}' | tr '\n' ' ')" \
    "09:00 10:00 10:00 10:00 "

# ---- a server fires a rule ---------------------------------------------
"$bin" schedule create tick --name every2 --rrule 'FREQ=SECONDLY;INTERVAL=2' \
    --db "$db" >/dev/null 2>&1
start_http b --db "$db" --workflows "$tmp/wf.yaml" --workers 1 || {
    cat "$tmp/b.log"
    exit 1
}
sleep 7
gaps=$(q "$db" "SELECT scheduled_for FROM runs WHERE schedule = 'every2' ORDER BY scheduled_for" |
    "$py" -c 'import sys; t=[int(x) for x in sys.stdin]; print(len(t) >= 2, sorted({(b-a)//1000000 for a,b in zip(t,t[1:])}))')
check "server: runs every 2 s of the rule" "$gaps" "True [2]"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
