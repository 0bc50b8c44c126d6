# SPDX-License-Identifier: MIT
"""Time python3-dateutil on bench/bench_daycal.c's holiday comparison.

The occurrences of "09:00, Monday to Friday, but not on a day of twenty
holiday rules" (bench/holidays.h), chained from 2026-01-01: an rruleset
of the daily rule with one exrule per holiday rule, iterated (dateutil's
fastest way to walk a set in order: each step continues the merge of the
rules, where after() would start it again). Microseconds per occurrence, the median of
REPEATS runs. Run with Debian's /usr/bin/python3, which has dateutil.

Output: a line, then the tab-separated

    bench  holiday  dateutil  20  US_PER_OCCURRENCE  LAST

LAST is the CHAIN-th occurrence (RFC 3339 UTC), which bench_daycal's must
equal: the two computed the same thing.
"""

import datetime as dt
import itertools
import statistics
import time

from dateutil.rrule import DAILY, MO, TU, WE, TH, FR, rrule, rruleset, rrulestr

from bench_holidays import RULES  # bench/holidays.h

CHAIN = 300
REPEATS = 7
START = dt.datetime(2026, 1, 1)


def the_set():
    s = rruleset()
    s.rrule(rrule(DAILY, dtstart=START, byweekday=(MO, TU, WE, TH, FR),
                  byhour=9, byminute=0, bysecond=0))
    for r in RULES:
        # At 09:00, so that an excluded day's occurrence is the one taken out.
        s.exrule(rrulestr(r + ";BYHOUR=9;BYMINUTE=0;BYSECOND=0",
                          dtstart=dt.datetime(1970, 1, 1)))
    return s


def run():
    t0 = time.perf_counter()
    got = list(itertools.islice(iter(the_set()), CHAIN))
    t1 = time.perf_counter()
    assert len(got) == CHAIN
    return (t1 - t0) * 1e6 / CHAIN, got[-1]


def main():
    runs = [run() for _ in range(REPEATS)]
    us = statistics.median(r[0] for r in runs)
    last = runs[0][1].strftime("%Y-%m-%dT%H:%M:%SZ")
    print("dateutil rruleset, 20 exrules, chained: %.2f us per occurrence "
          "(occurrence %d: %s)" % (us, CHAIN, last))
    print("bench\tholiday\tdateutil\t20\t%.3f\t%s" % (us, last))


if __name__ == "__main__":
    main()
