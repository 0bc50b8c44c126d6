# SPDX-License-Identifier: MIT
"""Time python3-dateutil on bench/bench_daycal.c's holiday comparison.

The occurrences of "09:00, Monday to Friday, but not on a day of twenty
holiday rules", chained from 2026-01-01: an rruleset of the daily rule
with one exrule per holiday rule, iterated (dateutil's fastest way to
walk a set in order: each step continues the merge of the rules, where
after() would start it again). Microseconds per occurrence, the median of
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

RULES = [
    "FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1",
    "FREQ=YEARLY;BYMONTH=1;BYDAY=3MO",
    "FREQ=YEARLY;BYMONTH=2;BYDAY=3MO",
    "FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO",
    "FREQ=YEARLY;BYMONTH=6;BYMONTHDAY=19",
    "FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4",
    "FREQ=YEARLY;BYMONTH=9;BYDAY=1MO",
    "FREQ=YEARLY;BYMONTH=10;BYDAY=2MO",
    "FREQ=YEARLY;BYMONTH=11;BYMONTHDAY=11",
    "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH",
    "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25",
    "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=24",
    "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=31",
    "FREQ=YEARLY;BYMONTH=11;BYDAY=4FR",
    "FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=17",
    "FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=15",
    "FREQ=YEARLY;BYMONTH=8;BYDAY=1MO",
    "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=14",
    "FREQ=YEARLY;BYMONTH=10;BYMONTHDAY=31",
    "FREQ=YEARLY;BYMONTH=5;BYDAY=2SU",
]
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
