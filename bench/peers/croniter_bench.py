# SPDX-License-Identifier: MIT
"""Time python3-croniter on the expression set of bench/bench_cron.c.

Microseconds per construction (parse) and per chained get_next, each call
continuing from the previous occurrence (croniter's iterator); the median
of REPEATS runs. Run with Debian's /usr/bin/python3, which has croniter.

Output: a table, then per case the tab-separated line

    bench  croniter  EXPR  ZONE  PARSE_US  NEXT_US

EXPR is written as bench_cron.c writes it; RENDER gives croniter's
spelling (seconds last, '?' as '*').
"""

import datetime as dt
import statistics
import time
from zoneinfo import ZoneInfo

from croniter import croniter

REPEATS = 7
PARSE_CALLS = 300
NEXT_CALLS = 300
CHAIN_LEN = 300  # as in bench_cron.c: one chain from 2025-01-01
EXPRS = ["* * * * *", "*/5 * * * *", "0 9 * * 1-5", "0 0 29 2 *",
         "*/30 * * * * *", "0 0 9 * * *"]
ZONES = ["UTC", "Europe/Paris", "America/New_York"]
CASES = [(e, z) for e in EXPRS for z in ZONES] + [
    ("15 10 L * ?", "UTC"), ("0 12 * * 5#3", "UTC")]
RENDER = {"*/30 * * * * *": "* * * * * */30", "0 0 9 * * *": "0 9 * * * 0",
          "15 10 L * ?": "15 10 L * *"}


def micros_per_call(calls, body):
    runs = []
    for _ in range(REPEATS):
        start = time.perf_counter_ns()
        body(calls)
        runs.append((time.perf_counter_ns() - start) / 1000 / calls)
    return statistics.median(runs)


def time_case(expr, zone):
    rendered = RENDER.get(expr, expr)
    origin = dt.datetime(2025, 1, 1, tzinfo=ZoneInfo(zone))

    def parse(calls):
        for _ in range(calls):
            croniter(rendered, origin)

    def chained(calls):
        it = croniter(rendered, origin)
        for i in range(calls):
            if i and i % CHAIN_LEN == 0:
                it = croniter(rendered, origin)
            it.get_next(float)

    return micros_per_call(PARSE_CALLS, parse), \
        micros_per_call(NEXT_CALLS, chained)


def main():
    print(f"{'expression':18} {'zone':18} {'parse us':>9} {'next us':>9}")
    lines = []
    for expr, zone in CASES:
        parse_us, next_us = time_case(expr, zone)
        print(f"{expr:18} {zone:18} {parse_us:9.2f} {next_us:9.2f}")
        lines.append(f"bench\tcroniter\t{expr}\t{zone}\t{parse_us:.3f}\t"
                     f"{next_us:.3f}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
