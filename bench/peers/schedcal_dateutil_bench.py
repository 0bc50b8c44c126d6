# SPDX-License-Identifier: MIT
"""Time python3-dateutil on bench/bench_schedcal.c's schedules.

The schedules "0 9 * * *", "0 9 * * 1-5" and "0 9 * * 1" in Europe/Paris,
skipping the days of the twenty holiday rules of bench/holidays.h: an
rruleset of rrule(DAILY at 09:00, the cron expression's weekdays) less
the holidays at 09:00, walked by chained after() calls (each from the
previous occurrence) from 2026-01-01 to 2029-01-01, as the scheduler asks.

Configurations, each checked to give the same occurrences:
  exrule         the twenty rules as exrules
  exdate         the holidays of the three years as exdates, precomputed
  exrule+cache   as exrule, rruleset(cache=True)
  exdate+cache   as exdate, rruleset(cache=True)
after() walks the set from its start at every call (a chain costs the
square of its length); the cache makes that walk a list's. The uncached
ones take seconds a chain and are timed once, the cached ones REPEATS
times (the median). The peer's figure is the fastest configuration's.
Beside it, "iterated": the set's iterator, one pass, which is not after()
(no next from an arbitrary instant) and is the least dateutil spends
per occurrence.

Output: lines, then per expression the tab-separated

    bench  schedcal  dateutil  EXPR  skip  US_PER_AFTER  COUNT  DIGEST  LAST  CONFIG  ITER_US

COUNT, DIGEST (FNV-1a over each occurrence's Unix seconds, 16 hex digits)
and LAST (RFC 3339 UTC) must equal bench_schedcal's of the same
expression in skip mode. With --list, print the occurrences instead,
one per line (EXPR, then the instant), as bench_schedcal --list does.
"""

import datetime as dt
import itertools
import statistics
import sys
import time
from zoneinfo import ZoneInfo

from dateutil.rrule import DAILY, MO, TU, WE, TH, FR, rrule, rruleset, rrulestr

from bench_holidays import RULES  # bench/holidays.h

PARIS = ZoneInfo("Europe/Paris")
UTC = dt.timezone.utc
START = dt.datetime(2026, 1, 1, tzinfo=UTC)
END = dt.datetime(2029, 1, 1, tzinfo=UTC)
REPEATS = 5
EXPRS = [("0 9 * * *", None), ("0 9 * * 1-5", (MO, TU, WE, TH, FR)),
         ("0 9 * * 1", (MO,))]


def holiday_rules():
    # At 09:00, so that an excluded day's occurrence is the one taken
    # out; from the chain's start (the days after it are the same).
    return [rrulestr(r + ";BYHOUR=9;BYMINUTE=0;BYSECOND=0",
                     dtstart=dt.datetime(2026, 1, 1, tzinfo=PARIS))
            for r in RULES]


def the_set(weekdays, how, cache):
    s = rruleset(cache=cache)
    s.rrule(rrule(DAILY, dtstart=dt.datetime(2026, 1, 1, 9, tzinfo=PARIS),
                  byweekday=weekdays, byhour=9, byminute=0, bysecond=0))
    for r in holiday_rules():
        if how == "exrule":
            s.exrule(r)
        else:
            for d in r.between(START, END, inc=True):
                s.exdate(d)
    return s


def chain(s):
    out, t = [], START
    while True:
        n = s.after(t)
        if n is None or n >= END:
            return out
        out.append(n)
        t = n


def timed_chain(weekdays, how, cache):
    s = the_set(weekdays, how, cache)  # built outside the timing
    t0 = time.perf_counter()
    got = chain(s)
    return (time.perf_counter() - t0) * 1e6 / len(got), got


def iterated(weekdays):
    s = the_set(weekdays, "exdate", False)
    t0 = time.perf_counter()
    got = list(itertools.takewhile(lambda x: x < END, s))
    return (time.perf_counter() - t0) * 1e6 / len(got), got


def digest(occurrences):
    h = 1469598103934665603
    for o in occurrences:
        h = ((h ^ int(o.timestamp())) * 1099511628211) & (2**64 - 1)
    return "%016x" % h


def utc(o):
    return o.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    if sys.argv[1:] == ["--list"]:
        for expr, weekdays in EXPRS:
            for o in chain(the_set(weekdays, "exdate", True)):
                print("%s\t%s" % (expr, utc(o)))
        return
    for expr, weekdays in EXPRS:
        figures, ref = {}, None
        for how in ("exrule", "exdate"):
            for cache in (False, True):
                name = how + ("+cache" if cache else "")
                runs = [timed_chain(weekdays, how, cache)
                        for _ in range(REPEATS if cache else 1)]
                got = runs[0][1]
                if ref is None:
                    ref = got
                if got != ref:
                    sys.exit("schedcal_dateutil_bench: %s %s gives other "
                             "occurrences" % (expr, name))
                figures[name] = statistics.median(r[0] for r in runs)
                print("%-12s %-13s %9.2f us per after() (%d occurrences)"
                      % (expr, name, figures[name], len(got)))
        it_runs = [iterated(weekdays) for _ in range(REPEATS)]
        if it_runs[0][1] != ref:
            sys.exit("schedcal_dateutil_bench: %s: the iterator gives other "
                     "occurrences" % expr)
        it_us = statistics.median(r[0] for r in it_runs)
        print("%-12s %-13s %9.2f us per occurrence" % (expr, "iterated", it_us))
        best = min(figures, key=figures.get)
        print("bench\tschedcal\tdateutil\t%s\tskip\t%.3f\t%d\t%s\t%s\t%s\t%.3f"
              % (expr, figures[best], len(ref), digest(ref), utc(ref[-1]),
                 best, it_us))


if __name__ == "__main__":
    main()
