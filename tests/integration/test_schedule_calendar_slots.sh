#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A schedule's slots through its calendars (docs/calendars.md, SPEC 12):
# "sked schedule preview --json" of schedules with --exclude, --only and
# --on-excluded, compared item by item with an oracle written from the
# definition alone, in Python with zoneinfo:
#
# - the raw occurrences are those of a twin schedule without calendars;
# - a day is the local date of an instant in the schedule's zone; a day
#   is excluded when it is one of the exclude calendars' days or (with
#   --only) none of the only calendars'; a target is a day not excluded
#   whose weekday is one of the business weekdays all the exclude
#   calendars share (with no exclude calendar there is none);
# - an occurrence on a day not excluded fires; on an excluded one, with
#   skip, or on a day outside the only calendars (those never move: only
#   says when the schedule runs at all), it is dropped ("excluded" at its
#   instant); otherwise, with
#   next_business_day (previous_business_day) it moves to the first
#   target after (before) its day, within 366 days, at its local time of
#   day, resolved under the schedule's DST policy ("moved" at that
#   instant, its occurrence beside it). It is dropped instead when there
#   is no target, when the time does not exist there under a skip
#   policy, when the schedule fires at that instant anyway, or when an
#   earlier occurrence at the same time of day moves to the same target
#   (the earliest moves), or to the same instant (two times of day in one
#   gap: two occurrences never share a slot);
# - the slots are listed by instant, strictly after --after.
#
# Generated cases (a fixed list of seeds, each printed on a failure with
# the whole case) in zones with 1-hour, 30-minute and no DST changes and
# a day far from UTC's, daily crons inside the gaps and the repeated
# hours, every 6 hours, weekdays, days of the month and every 20 minutes,
# calendars of runs of days around the changes and the month ends of
# 2026-2027; then hand cases with literal values.
#
# Usage: test_schedule_calendar_slots.sh. Env: SKED_BIN, SKED_SOURCE_DIR.
# Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=sqlite
. "$here/server_lib.sh"
unset SKED_DB SKED_SERVER SKED_TOKEN
mode_db slots.db
"$py" -c 'import zoneinfo' 2>/dev/null || {
    echo "python3 zoneinfo is missing"
    exit 77
}
# sked and the oracle read the same zone files.
zdir=$(cd "${SKED_SOURCE_DIR:-$here/../..}" && pwd)/tests/data/zoneinfo
if [ -f "$zdir/Europe/Paris" ]; then
    export TZDIR=$zdir PYTHONTZPATH=$zdir
fi

cat >"$tmp/oracle.py" <<'PY'
import collections, datetime as dt, json, random, subprocess, sys
from zoneinfo import ZoneInfo

BIN, DB = sys.argv[1], sys.argv[2]
UTC = dt.timezone.utc
DAY = dt.timedelta(days=1)
MOVE_MAX_DAYS = 366
STATS = collections.Counter()
WD = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


def sked(*args):
    p = subprocess.run([BIN, *args, "--db", DB], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("sked %s: exit %d: %s" % (" ".join(args),
                                                     p.returncode, p.stderr))
    return p.stdout


def ts(s):
    return int(dt.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
               .replace(tzinfo=UTC).timestamp())


def rfc(t):
    return dt.datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def preview(name, after, n):
    out = sked("schedule", "preview", name, "--after", rfc(after), "-n",
               str(n), "--json")
    return json.loads(out)["occurrences"]


def weekdays(spec):
    """The set of weekday numbers (Monday 0) of a --weekdays LIST."""
    got = set()
    for part in spec.split(","):
        a, _, b = part.partition("-")
        i, j = WD.index(a), WD.index(b or a)
        while True:
            got.add(i)
            if i == j:
                break
            i = (i + 1) % 7
    return got


class Case:
    """A schedule with its calendars, and the oracle's slots for it."""

    def __init__(self, name, zone, cron, dst, mode, exclude, only, after):
        self.name, self.zone, self.cron, self.dst = name, zone, cron, dst
        self.mode = mode            # skip, next, prev
        self.exclude = exclude      # [(dates, weekdays spec)]
        self.only = only
        self.after = after          # epoch seconds
        self.tz = ZoneInfo(zone)
        self.ex_days = set().union(*[set(d) for d, _ in exclude])
        self.only_days = set().union(*[set(d) for d, _ in only])
        self.wd = set(range(7)) if exclude else set()
        for _, w in exclude:
            self.wd &= weekdays(w)

    def describe(self):
        f = lambda cs: [(w, [d.isoformat() for d in sorted(ds)]) for ds, w in cs]
        return ("zone=%s cron=%r dst=%s on_excluded=%s after=%s exclude=%s "
                "only=%s" % (self.zone, self.cron, self.dst, self.mode,
                             rfc(self.after), f(self.exclude), f(self.only)))

    # ---- days
    def day(self, t):
        return dt.datetime.fromtimestamp(t, self.tz).date()

    def excluded(self, d):
        return d in self.ex_days or (bool(self.only) and d not in self.only_days)

    def moves(self, d):
        """Whether the occurrences of the excluded day D move: an exclude
        calendar's day inside the only ones."""
        return d in self.ex_days and not (self.only and d not in self.only_days)

    def target(self, d):
        return not self.excluded(d) and d.weekday() in self.wd

    def target_from(self, d, step):
        for i in range(1, MOVE_MAX_DAYS + 1):
            if self.target(d + step * i * DAY):
                return d + step * i * DAY
        return None

    # ---- a wall time as an instant under the DST policy
    def instants(self, wall):
        got = set()
        for f in (0, 1):
            u = wall.replace(tzinfo=self.tz, fold=f).astimezone(UTC)
            if u.astimezone(self.tz).replace(tzinfo=None) == wall:
                got.add(int(u.timestamp()))
        return sorted(got)

    def gap_end(self, wall):
        a = int(wall.replace(tzinfo=self.tz, fold=1).timestamp())
        b = int(wall.replace(tzinfo=self.tz, fold=0).timestamp())
        lo, hi = min(a, b), max(a, b)
        off = lambda t: dt.datetime.fromtimestamp(t, self.tz).utcoffset()
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if off(mid) == off(lo):
                lo = mid
            else:
                hi = mid
        return hi

    def resolve(self, wall):
        got = self.instants(wall)
        if not got:
            return None if self.dst.startswith("skip") else self.gap_end(wall)
        return got[-1] if "last" in self.dst else got[0]

    # ---- the slots
    def slots(self, raw):
        """RAW: every raw occurrence from well before the first slot that
        can matter to well after the last: [(instant, mark)]."""
        at = {t for t, _ in raw}
        movers = {}        # (target, time of day) -> the first occurrence
        out = []
        for r, mark in raw:
            e = self.day(r)
            if not self.excluded(e):
                out.append((r, None, None, mark))
                continue
            if self.mode == "skip" or not self.moves(e):
                out.append((r, "excluded", None, mark))
                continue
            t = self.target_from(e, 1 if self.mode == "next" else -1)
            if t is None:
                STATS["no target"] += 1
                out.append((r, "excluded", None, mark))
                continue
            tod = dt.datetime.fromtimestamp(r, self.tz).time()
            f = self.resolve(dt.datetime.combine(t, tod))
            if f is None or f in at:
                STATS["gap dropped" if f is None else "merged"] += 1
                out.append((r, "excluded", None, mark))
                continue
            # The first at that time of day to the target moves; so does
            # the first to an instant, when two times of day fall in one
            # gap: two occurrences never share a slot.
            if (t, tod) in movers or f in movers:
                STATS["after an earlier mover"] += 1
                out.append((r, "excluded", None, mark))
                continue
            movers[(t, tod)] = movers[f] = r
            # Marked as any firing at that wall time is.
            passes = self.instants(dt.datetime.combine(t, tod))
            mark = (None if len(passes) == 1 else "shifted" if not passes
                    else ["first_pass", "second_pass"][passes.index(f)])
            if mark:
                STATS["moved into a gap or a fold"] += 1
            out.append((f, "moved", r, mark))
        out.sort(key=lambda s: s[0])
        return out

    def local(self, t):
        return dt.datetime.fromtimestamp(t, self.tz).isoformat()

    # ---- create and compare
    def create(self):
        names = {}
        for kind, cals in (("x", self.exclude), ("o", self.only)):
            names[kind] = []
            for k, (days, w) in enumerate(cals):
                n = "%s-%s%d" % (self.name, kind, k)
                args = ["calendar", "create", n, "--weekdays", w]
                for d in sorted(days):
                    args += ["--date", d.isoformat()]
                sked(*args)
                got = json.loads(sked("calendar", "days", n, "--from",
                                      "2026-01-01", "--to", "2028-12-31",
                                      "--json"))["days"]
                want = sorted(d.isoformat() for d in days)
                if [x["date"] for x in got] != want:
                    return "calendar %s days %s, want %s" % (
                        n, [x["date"] for x in got], want)
                names[kind].append(n)
        base = ["schedule", "create", "tick", self.cron, "--timezone",
                self.zone, "--dst", self.dst]
        sked(*base, "--name", self.name + "-raw")
        args = base + ["--name", self.name, "--on-excluded",
                       {"skip": "skip", "next": "next_business_day",
                        "prev": "previous_business_day"}[self.mode]]
        if names["x"]:
            args += ["--exclude", ",".join(names["x"])]
        if names["o"]:
            args += ["--only", ",".join(names["o"])]
        sked(*args)
        return None

    def raw_between(self, lo, hi):
        got, pos = [], lo
        while True:
            page = preview(self.name + "-raw", pos, 1000)
            for o in page:
                if o.get("calendar") is not None:
                    raise RuntimeError("raw twin has calendar %r" % o)
                got.append((ts(o["at"]), o["mark"]))
            if len(page) < 1000 or got[-1][0] >= hi:
                return got
            pos = got[-1][0]

    def check(self, n):
        err = self.create()
        if err:
            return err
        items = preview(self.name, self.after, n)
        if not items:
            return "no slots"
        last = ts(items[-1]["at"])
        # The raw occurrences that decide the slots in (after, last]: a
        # move (or where it lands: where the schedule fires anyway, where
        # an earlier one moves) reaches no further than the last target
        # before after's day and the first after last's day.
        lo, hi = self.after, last
        if self.mode != "skip":
            a, z = self.day(self.after), self.day(last)
            p = self.target_from(a, -1) or a - (MOVE_MAX_DAYS + 2) * DAY
            q = self.target_from(z, 1) or z + (MOVE_MAX_DAYS + 2) * DAY
            lo = int(dt.datetime.combine(p, dt.time(), UTC).timestamp()) - 2 * 86400
            hi = int(dt.datetime.combine(q, dt.time(), UTC).timestamp()) + 3 * 86400
        raw = self.raw_between(lo - 1, hi)
        want = [s for s in self.slots(raw) if self.after < s[0] <= last]
        for s in want:
            STATS["listed " + (s[1] or "fire")] += 1
        for i in range(max(len(want), len(items))):
            w = want[i] if i < len(want) else None
            g = items[i] if i < len(items) else None
            wv = w and {"at": rfc(w[0]), "local": self.local(w[0]),
                        "calendar": w[1],
                        "occurrence": w[2] and rfc(w[2])}
            gv = g and {k: g.get(k) for k in ("at", "local", "calendar",
                                          "occurrence")}
            if w and g and g["mark"] != w[3]:
                gv["mark"], wv["mark"] = g["mark"], w[3]
            if wv != gv:
                return "item %d of %d: want %s, got %s" % (
                    i, len(items), json.dumps(wv), json.dumps(gv))
        if len(items) != n:
            return "%d slots, want %d" % (len(items), n)
        return None


# ---- generated cases --------------------------------------------------------
ZONES = ["Europe/Paris", "America/New_York", "Australia/Lord_Howe",
         "Pacific/Apia", "Asia/Kolkata", "UTC", "America/Sao_Paulo"]
# Crons that fire every day (a move lands where they fire anyway but for
# the DST days), and crons that leave days out (a move is a new firing).
DAILY = ["0 9 * * *", "30 23 * * *", "0 0 * * *", "0 */6 * * *",
         "*/20 9-10 * * *"]
SPARSE = ["0 9 * * 1-5", "0 9 25 * *", "0 9 1,15 * *", "0 18 28-31 * *",
          "30 2 * * 6", "0 9 * * 1,3"]
# Times inside the gaps and the repeated hours, every day, or on the days
# beside the changes' Sundays only (a move onto the Sunday is then a new
# firing).
ZONE_CRONS = {"Europe/Paris": ["30 2 * * *", "15,45 2 * * *", "30 2 * * 6",
                               "15,45 2 * * 1,6", "30 2 * * 1"],
              "America/New_York": ["30 1 * * *", "30 2 * * *", "30 1 * * 6",
                                   "30 2 * * 6", "30 1,2 * * 1,6"],
              "Australia/Lord_Howe": ["15 2 * * *", "45 1 * * *",
                                      "15 2 * * 6", "45 1 * * 1,6",
                                      "0,15 2 * * 6"]}
# The changes of 2026-2027 (Sundays) and the month ends: where the dates
# cluster.
CHANGES = {"America/New_York": [dt.date(2026, 3, 8), dt.date(2026, 11, 1),
                                dt.date(2027, 3, 14), dt.date(2027, 11, 7)],
           "Europe/Paris": [dt.date(2026, 3, 29), dt.date(2026, 10, 25),
                            dt.date(2027, 3, 28), dt.date(2027, 10, 31)],
           "Australia/Lord_Howe": [dt.date(2026, 4, 5), dt.date(2026, 10, 4),
                                   dt.date(2027, 4, 4), dt.date(2027, 10, 3)]}
ALL_CHANGES = sorted(sum(CHANGES.values(), []))
MONTH_ENDS = [dt.date(y + (m == 12), m % 12 + 1, 1) - DAY
              for y in (2026, 2027) for m in range(2, 13)]
WEEKDAYS = ["mon-fri"] * 4 + ["mon-sun"] * 2 + ["sun-thu", "mon-sat",
                                                "tue-fri", "mon,wed,fri"]
DSTS = ["once", "once", "once", "last", "skip", "skip,last"]


def runs(rnd, anchors, count):
    """COUNT runs of 1 to 4 days, each ending just before, on or just after
    one of ANCHORS."""
    days = set()
    for _ in range(count):
        n = rnd.randint(1, 4)
        end = rnd.choice(anchors) + rnd.randint(-2, 1) * DAY
        days |= {end - k * DAY for k in range(n)}
    return days


def generate(seed):
    rnd = random.Random(seed)
    zone = rnd.choice(ZONES + list(CHANGES))
    cron = rnd.choice(DAILY + SPARSE + ZONE_CRONS.get(zone, []) * 2)
    mode = rnd.choice(["skip", "next", "next", "prev", "prev"])
    kind = rnd.choice(["exclude"] * 4 + ["only", "both"])
    own = CHANGES.get(zone, [])
    anchor = rnd.choice(own * 3 + ALL_CHANGES + MONTH_ENDS)
    near = [d for d in own * 3 + ALL_CHANGES + MONTH_ENDS
            if abs((d - anchor).days) <= 45]
    exclude, only = [], []
    if own and rnd.random() < 0.6:
        # Onto the zone's changes' days, or off them: the days before
        # each (after it for previous_business_day), or the day itself,
        # with Sunday a business day.
        cron = rnd.choice(ZONE_CRONS[zone])
        dow = cron.split()[4]
        mode = rnd.choice(["next"] * ("6" in dow or dow == "*") +
                          ["prev"] * ("1" in dow or dow == "*"))
        days = set()
        for change in own:
            k = rnd.randint(1, 3)
            if rnd.random() < 0.3:
                days.add(change)
            elif mode == "prev":
                days |= {change + i * DAY for i in range(1, k + 1)}
            else:
                days |= {change - i * DAY for i in range(1, k + 1)}
        exclude.append((days, rnd.choice(["mon-sun", "sun-thu"])))
        kind = "exclude"
    if kind in ("exclude", "both") and not exclude:
        for _ in range(rnd.choice([1, 1, 2])):
            exclude.append((runs(rnd, near, rnd.randint(2, 5)),
                            rnd.choice(WEEKDAYS)))
    if kind in ("only", "both"):
        for _ in range(rnd.choice([1, 1, 2])):
            # Stretches of days with holes in them, over the months of the
            # preview.
            days, d = set(), anchor - rnd.randint(5, 30) * DAY
            while d < anchor + 240 * DAY:
                n = rnd.randint(2, 9)
                days |= {d + k * DAY for k in range(n)}
                d += (n + rnd.randint(1, 4)) * DAY
            only.append((days, rnd.choice(WEEKDAYS)))
    first = min(min(ds) for ds, _ in exclude + only)
    after = dt.datetime.combine(first - rnd.randint(1, 10) * DAY,
                                dt.time(rnd.choice([0, 12])), UTC)
    return Case("g%d" % seed, zone, cron, rnd.choice(DSTS), mode, exclude,
                only, int(after.timestamp()))


mode = sys.argv[3]
if mode == "generated":
    seeds = [int(s) for s in sys.argv[4].split()]
    for seed in seeds:
        c = generate(seed)
        try:
            err = c.check(int(sys.argv[5]))
        except Exception as e:      # a refusal or bad JSON is a failure too
            err = "error: %s" % e
        if err:
            print("FAIL\tseed %d: %s\n  case: %s" % (seed, err, c.describe()))
        else:
            print("ok\tseed %d" % seed)
    print("stats\t" + ", ".join("%s %d" % kv for kv in sorted(STATS.items())))
PY

# ---- generated cases against the oracle ----------------------------------
seeds=$(seq 1 40)
echo "seeds:" $seeds
"$py" "$tmp/oracle.py" "$bin" "$db" generated "$seeds" 200 >"$tmp/gen" 2>&1
grep -v '^ok' "$tmp/gen" | head -40
new_bad=
for s in $(sed -n 's/^FAIL\tseed \([0-9]*\):.*/\1/p' "$tmp/gen"); do
    new_bad="$new_bad $s"
done
echo "generated cases: $(grep -c '^ok' "$tmp/gen") of 40 agree"
check "generated cases: all ran" "$(grep -c '^ok\|^FAIL' "$tmp/gen")" 40
check "generated cases agree with the oracle (seeds disagreeing:)" "$new_bad" ""

# ---- hand cases -----------------------------------------------------------
# sched NAME ARGS...: create the schedule NAME of workflow tick.
sched() {
    local n=$1
    shift
    "$bin" schedule create tick "$@" --name "$n" --db "$db" >/dev/null 2>"$tmp/err" ||
        fail "create $n" "$(cat "$tmp/err")"
}
# slots NAME AFTER N: "at/calendar/occurrence" of each slot, "-" for null.
slots() {
    "$bin" schedule preview "$1" --after "$2" -n "$3" --json --db "$db" |
        "$py" -c 'import json, sys
print(" ".join("%s/%s/%s" % (o["at"], o.get("calendar") or "-", o.get("occurrence") or "-")
               for o in json.load(sys.stdin)["occurrences"]))'
}
cal() { "$bin" calendar create "$@" --db "$db" >/dev/null || fail "calendar $1" "refused"; }

cal xmas --date 2026-12-25
# Friday Dec 25 moves to Monday Dec 28 09:00, where a daily schedule fires
# anyway: dropped as excluded, one run on Monday.
sched h-daily "0 9 * * *" --timezone Europe/Paris --exclude xmas \
    --on-excluded next_business_day
check "daily, Dec 25 merged into Monday" "$(slots h-daily 2026-12-24T12:00:00Z 4)" \
    "2026-12-25T08:00:00Z/excluded/- 2026-12-26T08:00:00Z/-/- 2026-12-27T08:00:00Z/-/- 2026-12-28T08:00:00Z/-/-"
sched h-25th "0 9 25 * *" --timezone Europe/Paris --exclude xmas \
    --on-excluded next_business_day
check "the 25th moved to Monday Dec 28" "$(slots h-25th 2026-12-01T00:00:00Z 2)" \
    "2026-12-28T08:00:00Z/moved/2026-12-25T08:00:00Z 2027-01-25T08:00:00Z/-/-"
sched h-25th-skip "0 9 25 * *" --timezone Europe/Paris --exclude xmas
check "the 25th skipped" "$(slots h-25th-skip 2026-12-01T00:00:00Z 2)" \
    "2026-12-25T08:00:00Z/excluded/- 2027-01-25T08:00:00Z/-/-"
# The schedule says its calendars in words, through the API's object.
words() {
    "$bin" schedule get "$1" --json --db "$db" |
        "$py" -c 'import json, sys; print(json.load(sys.stdin)["calendar_words"])'
}
check "words: moved" "$(words h-25th)" \
    "Excluding the days of xmas; on an excluded day, the next business day"
check "words: skipped" "$(words h-25th-skip)" "Excluding the days of xmas"

# The last business day of the month at 18:00 in New York, Dec 31 off.
cal eoy --date 2026-12-31
lastbd=$'DTSTART;TZID=America/New_York:20260101T180000\nRRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1'
sched h-eoy-prev --rrule "$lastbd" --timezone America/New_York --exclude eoy \
    --on-excluded previous_business_day
check "last business day, Dec 31 off: Dec 30 18:00" "$(slots h-eoy-prev 2026-12-01T00:00:00Z 2)" \
    "2026-12-30T23:00:00Z/moved/2026-12-31T23:00:00Z 2027-01-29T23:00:00Z/-/-"
sched h-eoy-next --rrule "$lastbd" --timezone America/New_York --exclude eoy \
    --on-excluded next_business_day
check "last business day, Dec 31 off: Jan 1 18:00" "$(slots h-eoy-next 2026-12-01T00:00:00Z 2)" \
    "2027-01-01T23:00:00Z/moved/2026-12-31T23:00:00Z 2027-01-29T23:00:00Z/-/-"

# Onto a change's Sunday (a business day here): 02:30 on Mar 28 2027 is
# skipped in Paris (the end of the gap, or nothing under skip), and
# happens twice on Oct 31 (the first pass, or the second under last).
cal sat --date 2027-03-27 --date 2027-10-30 --weekdays mon-sun
sched h-gap "30 2 * * 6" --timezone Europe/Paris --exclude sat \
    --on-excluded next_business_day
check "moved into the gap: its end" "$(slots h-gap 2027-03-26T00:00:00Z 2)" \
    "2027-03-28T01:00:00Z/moved/2027-03-27T01:30:00Z 2027-04-03T00:30:00Z/-/-"
check "moved into the gap: local" "$("$bin" schedule preview h-gap --after 2027-03-26T00:00:00Z -n 1 --json --db "$db" |
    "$py" -c 'import json,sys; o=json.load(sys.stdin)["occurrences"][0]; print(o["local"], o["mark"])')" \
    "2027-03-28T03:00:00+02:00 shifted"
sched h-gap-skip "30 2 * * 6" --timezone Europe/Paris --dst skip --exclude sat \
    --on-excluded next_business_day
check "moved into the gap under skip: excluded" "$(slots h-gap-skip 2027-03-26T00:00:00Z 2)" \
    "2027-03-27T01:30:00Z/excluded/- 2027-04-03T00:30:00Z/-/-"
check "moved into the fold: first pass" "$(slots h-gap 2027-10-29T00:00:00Z 2)" \
    "2027-10-31T00:30:00Z/moved/2027-10-30T00:30:00Z 2027-11-06T01:30:00Z/-/-"
sched h-fold-last "30 2 * * 6" --timezone Europe/Paris --dst last --exclude sat \
    --on-excluded next_business_day
check "moved into the fold under last: second pass" "$(slots h-fold-last 2027-10-29T00:00:00Z 2)" \
    "2027-10-31T01:30:00Z/moved/2027-10-30T00:30:00Z 2027-11-06T01:30:00Z/-/-"

# Off the gap's day: that day's run is at 03:00 (the end of the gap), and
# so is the moved one on Monday, beside Monday's own 02:30.
cal gapday --date 2027-03-28
sched h-offgap "30 2 * * *" --timezone Europe/Paris --exclude gapday \
    --on-excluded next_business_day
check "moved off the gap's day at its 03:00" "$(slots h-offgap 2027-03-27T00:00:00Z 3)" \
    "2027-03-27T01:30:00Z/-/- 2027-03-29T00:30:00Z/-/- 2027-03-29T01:00:00Z/moved/2027-03-28T01:00:00Z"

# Two excluded days moving to one Monday at one time: the first moves.
cal wkend --date 2027-01-09 --date 2027-01-10
sched h-two "0 9 * * 6,0" --timezone UTC --exclude wkend \
    --on-excluded next_business_day
check "two to one Monday: the first moves" "$(slots h-two 2027-01-08T00:00:00Z 3)" \
    "2027-01-10T09:00:00Z/excluded/- 2027-01-11T09:00:00Z/moved/2027-01-09T09:00:00Z 2027-01-16T09:00:00Z/-/-"
# Previous: Sunday's goes back to Friday, Saturday's is the later one there.
sched h-two-prev "0 9 * * 6,0" --timezone UTC --exclude wkend \
    --on-excluded previous_business_day
check "two to one Friday: the first moves" "$(slots h-two-prev 2027-01-07T00:00:00Z 3)" \
    "2027-01-08T09:00:00Z/moved/2027-01-09T09:00:00Z 2027-01-10T09:00:00Z/excluded/- 2027-01-16T09:00:00Z/-/-"

# Only: the days outside are dropped, never moved (on the zone's date:
# Apia is 13 hours ahead of UTC), whatever on_excluded says.
cal weekdays --rule 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR'
sched h-only "0 9 * * 0,1" --timezone Pacific/Apia --only weekdays \
    --on-excluded next_business_day
check "only: Sundays dropped, Mondays fire" "$(slots h-only 2027-01-01T00:00:00Z 2)" \
    "2027-01-02T20:00:00Z/excluded/- 2027-01-03T20:00:00Z/-/-"

# A year of excluded days: only the occurrences within a move's reach
# (366 days) of the first target move, the earliest of them there.
cal year --rule 'DTSTART=20260101;FREQ=DAILY;UNTIL=20270216'
sched h-year "30 2 * * 6" --timezone UTC --exclude year --on-excluded next_business_day
check "a year excluded: the first occurrence within reach moves" \
    "$(slots h-year 2027-02-15T00:00:00Z 2)" \
    "2027-02-17T02:30:00Z/moved/2026-02-21T02:30:00Z 2027-02-20T02:30:00Z/-/-"
# Two times of day moved into one gap land on one instant: the first
# moves there, the second is excluded (two occurrences never share a
# slot).
cal sat2 --date 2027-03-27 --weekdays mon-sun
sched k-gap2 "15,45 2 * * 6" --timezone Europe/Paris --exclude sat2 \
    --on-excluded next_business_day
check "the second into one gap instant is excluded" \
    "$(slots k-gap2 2027-03-26T00:00:00Z 3)" \
    "2027-03-27T01:45:00Z/excluded/- 2027-03-28T01:00:00Z/moved/2027-03-27T01:15:00Z 2027-04-03T00:15:00Z/-/-"

# The replay, through the API and the CLI, knows the calendars.
sim_of() { # simulate JSON on stdin: "occurrence/at/scheduled_for" of each
    "$py" -c 'import json, sys
t = sys.stdin.read()
d = json.loads(t)["decisions"] if t.startswith("{\"schedule\"") else [json.loads(l) for l in t.splitlines() if l.strip()]
print(" ".join("%s/%s/%s" % (x["occurrence"], x["at"], x.get("scheduled_for")) for x in d))'
}
start_http a --db "$db" --workers 0 || cat "$tmp/a.log"
check "api simulate: the 25th fires on Monday Dec 28" \
    "$(curl -s -X POST -H 'Content-Type: application/json' \
        -d '{"from":"2026-12-20T00:00:00Z","to":"2026-12-30T00:00:00Z"}' \
        "$url_a/api/v1/schedules/h-25th/simulate" | sim_of)" \
    "2026-12-25T08:00:00Z/2026-12-28T08:00:00Z/2026-12-28T08:00:00Z"
check "cli simulate: the 25th fires on Monday Dec 28" \
    "$("$bin" schedule simulate h-25th --from 2026-12-20T00:00:00Z \
        --to 2026-12-30T00:00:00Z --json --db "$db" | sim_of)" \
    "2026-12-25T08:00:00Z/2026-12-28T08:00:00Z/2026-12-28T08:00:00Z"
stop_server a TERM

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
