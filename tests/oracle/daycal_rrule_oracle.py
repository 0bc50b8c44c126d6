#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Day calendars' rules against python-dateutil's rrule, day by day.

Writes a few hundred seeded random RFC 5545 rules (FREQ YEARLY, MONTHLY,
WEEKLY, DAILY; INTERVAL, BYMONTH, BYMONTHDAY with negatives, BYDAY with
ordinals, BYSETPOS, COUNT, UNTIL, and now and then WKST or BYYEARDAY)
with a DTSTART from 1970 to 2150, has
the driver (tests/tools/daycal_driver) build a calendar of each, and
compares the days in 1970-01-01..2200-12-31 with dateutil.rrule's.
Rules dateutil expands to no day in the range must be refused by sked.

Usage: daycal_rrule_oracle.py DRIVER [SEED [N]]
Exit status 0 when every rule agrees, 1 otherwise (each difference is
printed with the first day that differs)."""

import datetime
import random
import subprocess
import sys

import dateutil
from dateutil import rrule

EPOCH = datetime.date(1970, 1, 1)
LAST = datetime.date(2200, 12, 31)
FREQS = {"YEARLY": rrule.YEARLY, "MONTHLY": rrule.MONTHLY,
         "WEEKLY": rrule.WEEKLY, "DAILY": rrule.DAILY}
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


def random_rule(rnd):
    freq = rnd.choice(["YEARLY"] * 3 + ["MONTHLY"] * 3 + ["WEEKLY"] * 2 +
                      ["DAILY"] * 2)
    start = EPOCH + datetime.timedelta(days=rnd.randrange(0, 66000))
    parts = ["FREQ=" + freq]
    if rnd.random() < 0.4:
        parts.append("INTERVAL=%d" % rnd.choice([2, 3, 4, 5, 7, 12]))
    if rnd.random() < (0.6 if freq == "YEARLY" else 0.25):
        parts.append("BYMONTH=" + ",".join(
            str(m) for m in sorted(rnd.sample(range(1, 13),
                                              rnd.randint(1, 3)))))
    pick = rnd.random()
    if pick < 0.35 and freq != "WEEKLY":
        days = rnd.sample([d for d in range(-31, 32) if d != 0],
                          rnd.randint(1, 3))
        parts.append("BYMONTHDAY=" + ",".join(str(d) for d in days))
    elif pick < 0.8:
        days = rnd.sample(DAYS, rnd.randint(1, 3))
        if freq in ("MONTHLY", "YEARLY") and rnd.random() < 0.5:
            n = rnd.choice([1, 2, 3, 4, -1, -2])
            if freq == "YEARLY" and not any(p.startswith("BYMONTH=")
                                            for p in parts):
                n = rnd.choice([1, 2, 10, 20, 52, -1, -5])
            days = ["%d%s" % (n, d) for d in days[:1]]
        parts.append("BYDAY=" + ",".join(days))
        if (freq in ("MONTHLY", "YEARLY") and rnd.random() < 0.4 and
                not days[0][0] in "-0123456789"):
            parts.append("BYSETPOS=" + rnd.choice(["1", "-1", "2", "1,-1",
                                                   "3"]))
    has = lambda name: any(p.startswith(name + "=") for p in parts)
    if freq == "WEEKLY" and rnd.random() < 0.3:
        parts.append("WKST=" + rnd.choice(["SU", "TH", "SA"]))
    elif (freq == "YEARLY" and not has("BYMONTHDAY") and
          not has("BYDAY") and rnd.random() < 0.3):
        parts.append("BYYEARDAY=%d" % rnd.choice([1, 60, 100, 366, -1, -300]))
    end = rnd.random()
    if end < 0.3:
        parts.append("COUNT=%d" % rnd.randint(1, 60))
    elif end < 0.6 or freq == "DAILY":
        until = start + datetime.timedelta(days=rnd.randrange(0, 9000))
        parts.append("UNTIL=" + until.strftime("%Y%m%d"))
    rnd.shuffle(parts)
    return start, ";".join(parts)


def oracle_days(start, rule):
    text = "DTSTART:%s\nRRULE:%s" % (start.strftime("%Y%m%d"), rule)
    r = rrule.rrulestr(text)
    out = []
    for dt in r:
        d = dt.date()
        if d > LAST:
            break
        if d >= EPOCH:
            out.append((d - EPOCH).days)
    return out


def day_text(n):
    return (EPOCH + datetime.timedelta(days=n)).isoformat()


def main():
    driver = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 5545
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    rnd = random.Random(seed)
    cases = [random_rule(rnd) for _ in range(count)]
    lines = ["DTSTART=%s;%s" % (s.strftime("%Y%m%d"), r) for s, r in cases]
    res = subprocess.run([driver], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True)
    answers = res.stdout.splitlines()
    if len(answers) != len(lines):
        print("driver answered %d of %d lines" % (len(answers), len(lines)))
        return 1
    agree = days = empty = bad = 0
    for (start, rule), line, got in zip(cases, lines, answers):
        want = oracle_days(start, rule)
        if not want:
            if got.startswith("ERROR"):
                empty += 1
                continue
            print("MISMATCH %s: no day in range, sked answered days" % line)
            bad += 1
            continue
        if got.startswith("ERROR"):
            print("MISMATCH %s: refused: %s" % (line, got))
            bad += 1
            continue
        mine = [int(x) for x in got.split()]
        if mine == want:
            agree += 1
            days += len(want)
            continue
        bad += 1
        first = next((i for i, (a, b) in enumerate(zip(mine, want)) if a != b),
                     min(len(mine), len(want)))
        print("MISMATCH %s: %d days vs dateutil's %d; first difference at "
              "#%d: sked %s, dateutil %s" % (
                  line, len(mine), len(want), first,
                  day_text(mine[first]) if first < len(mine) else "-",
                  day_text(want[first]) if first < len(want) else "-"))
    print("daycal rules vs dateutil %s: %d rules agree on %d days; %d with "
          "no day in range refused by both; %d differ" % (
              dateutil.__version__, agree, days, empty, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
