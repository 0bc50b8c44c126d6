# SPDX-License-Identifier: MIT
"""Time python3-croniter on the expression set of bench/bench_cron.c.

Microseconds per construction (parse) and per chained get_next, each call
continuing from the previous occurrence (croniter's iterator); the median
of REPEATS runs after a warm-up run. Run with Debian's /usr/bin/python3,
which has croniter.

croniter in its fastest correct configuration per zone: each of CONFIGS
is timed, and the fastest whose occurrences equal those of the plainest
one (an aware start in the zone, datetimes out) is reported; a
configuration that finds other occurrences is never the figure. In UTC a
start given as seconds since the epoch keeps croniter off time zones
altogether.

Output: a table, then per case the tab-separated line

    bench  croniter  EXPR  ZONE  PARSE_US  NEXT_US  DIGEST  CONFIG

DIGEST is COUNT:SUM of the occurrences (seconds since the epoch) of
DIGEST_LEN chained calls from each of DIGEST_ORIGINS, as bench_cron.c
computes it. EXPR is written as bench_cron.c writes it; RENDER gives
croniter's spelling (seconds last, '?' as '*').
"""

import datetime as dt
import statistics
import time
from zoneinfo import ZoneInfo

from croniter import croniter

REPEATS = 7
PARSE_CALLS = 300
NEXT_CALLS = 600
CHAIN_LEN = 300  # as in bench_cron.c: one chain from 2025-01-01
DIGEST_LEN = 20
DIGEST_ORIGINS = [1735689600, 1741503300, 1743296100, 1761440100, 1762062900]
EXPRS = ["* * * * *", "*/5 * * * *", "0 9 * * 1-5", "0 0 29 2 *",
         "*/30 * * * * *", "0 0 9 * * *"]
ZONES = ["UTC", "Europe/Paris", "America/New_York"]
CASES = [(e, z) for e in EXPRS for z in ZONES] + [
    ("15 10 L * ?", "UTC"), ("0 12 * * 5#3", "UTC")]
RENDER = {"*/30 * * * * *": "* * * * * */30", "0 0 9 * * *": "0 9 * * * 0",
          "15 10 L * ?": "15 10 L * *"}


def start_aware(zone, seconds):
    return dt.datetime.fromtimestamp(seconds, ZoneInfo(zone))


def start_epoch(zone, seconds):
    return float(seconds)


# (name, start, result type, zones): the plainest first, the reference.
CONFIGS = [
    ("aware start, datetime", start_aware, dt.datetime, None),
    ("aware start, float", start_aware, float, None),
    ("epoch start, float", start_epoch, float, {"UTC"}),
]


def seconds_of(value):
    return int(value.timestamp()) if isinstance(value, dt.datetime) \
        else int(value)


def micros_per_call(calls, body):
    body(calls)  # warm-up
    runs = []
    for _ in range(REPEATS):
        start = time.perf_counter_ns()
        body(calls)
        runs.append((time.perf_counter_ns() - start) / 1000 / calls)
    return statistics.median(runs)


def digest(rendered, zone, config):
    _, start, kind, _ = config
    count = total = 0
    for origin in DIGEST_ORIGINS:
        it = croniter(rendered, start(zone, origin))
        for _ in range(DIGEST_LEN):
            total += seconds_of(it.get_next(kind))
            count += 1
    return f"{count}:{total}"


def time_config(rendered, zone, config):
    _, start, kind, _ = config
    origin = start(zone, DIGEST_ORIGINS[0])

    def parse(calls):
        for _ in range(calls):
            croniter(rendered, origin)

    def chained(calls):
        it = croniter(rendered, origin)
        for i in range(calls):
            if i and i % CHAIN_LEN == 0:
                it = croniter(rendered, origin)
            it.get_next(kind)

    return micros_per_call(PARSE_CALLS, parse), \
        micros_per_call(NEXT_CALLS, chained)


def time_case(expr, zone):
    """Return (parse_us, next_us, digest, config name), the fastest."""
    rendered = RENDER.get(expr, expr)
    want = digest(rendered, zone, CONFIGS[0])
    best = None
    for config in CONFIGS:
        if config[3] is not None and zone not in config[3]:
            continue
        if digest(rendered, zone, config) != want:
            continue
        parse_us, next_us = time_config(rendered, zone, config)
        if best is None or next_us < best[1]:
            best = (parse_us, next_us, want, config[0])
    return best


def main():
    print(f"{'expression':18} {'zone':18} {'parse us':>9} {'next us':>9}"
          "  configuration")
    lines = []
    for expr, zone in CASES:
        parse_us, next_us, dig, name = time_case(expr, zone)
        print(f"{expr:18} {zone:18} {parse_us:9.2f} {next_us:9.2f}  {name}")
        lines.append(f"bench\tcroniter\t{expr}\t{zone}\t{parse_us:.3f}\t"
                     f"{next_us:.3f}\t{dig}\t{name}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
