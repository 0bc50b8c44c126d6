# SPDX-License-Identifier: MIT
"""Time systemd's calendar events on the expression set of bench/bench_cron.c.

`systemd-analyze calendar --iterations=N --base-time=2025-01-01` walks a
calendar event's next elapses in C, chained, as a scheduler does; the
process is timed from outside. Its start (and the first elapse) is taken
away by subtracting a run of one iteration, so the figure is
(T(N) - T(1)) / (N - 1) microseconds per next, the median of REPEATS
pairs; it still includes formatting each elapse for output, which the
other peers do not pay. In a zone other than UTC systemd forks a process
for every elapse (to compute under that TZ), about a millisecond each, so
those cases take ZONED_ITERATIONS. systemd computes no elapse after 2199,
so the chain of 0 0 29 2 * has 42 elapses: in UTC too few to stand out of
the process's start, and its figure is "-" (MIN_ELAPSES). SYSTEMD spells each cron expression as a
calendar event (all eight have one: 'L' is '~01', the third Friday is a
Friday on days 15-21). There is no parse figure: "-" is printed.

Output: a table, then per case the tab-separated line

    bench  systemd  EXPR  ZONE  -  NEXT_US  DIGEST  CONFIG

DIGEST is COUNT:SUM of the occurrences (seconds since the epoch) of
DIGEST_LEN chained elapses from each of DIGEST_ORIGINS, as bench_cron.c
computes it.
"""

import calendar
import os
import re
import statistics
import subprocess
import sys
import time

REPEATS = 7
ITERATIONS = 2000
ZONED_ITERATIONS = 40
MIN_ELAPSES = 200
DIGEST_LEN = 20
ORIGIN = 1735689600
DIGEST_ORIGINS = [1735689600, 1741503300, 1743296100, 1761440100, 1762062900]
EXPRS = ["* * * * *", "*/5 * * * *", "0 9 * * 1-5", "0 0 29 2 *",
         "*/30 * * * * *", "0 0 9 * * *"]
ZONES = ["UTC", "Europe/Paris", "America/New_York"]
CASES = [(e, z) for e in EXPRS for z in ZONES] + [
    ("15 10 L * ?", "UTC"), ("0 12 * * 5#3", "UTC")]
SYSTEMD = {
    "* * * * *": "*-*-* *:*:00",
    "*/5 * * * *": "*-*-* *:00/5:00",
    "0 9 * * 1-5": "Mon..Fri *-*-* 09:00:00",
    "0 0 29 2 *": "*-02-29 00:00:00",
    "*/30 * * * * *": "*-*-* *:*:00/30",
    "0 0 9 * * *": "*-*-* 09:00:00",
    "15 10 L * ?": "*-*~01 10:15:00",
    "0 12 * * 5#3": "Fri *-*-15..21 12:00:00",
}
# Elapses are printed in the process's zone: UTC, read back below.
ENV = dict(os.environ, TZ="UTC", LC_ALL="C")
ELAPSE = re.compile(r"(?:Next elapse|Iter\. #\d+): \w+ "
                    r"(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+) UTC")


def run(event, base, iterations):
    """Return (seconds taken, the elapses as seconds since the epoch)."""
    start = time.perf_counter()
    out = subprocess.run(
        ["systemd-analyze", "calendar", f"--iterations={iterations}",
         f"--base-time=@{base}", event],
        env=ENV, check=True, capture_output=True, text=True).stdout
    took = time.perf_counter() - start
    return took, [calendar.timegm(tuple(int(g) for g in m.groups()))
                  for m in ELAPSE.finditer(out)]


def time_case(expr, zone):
    event = f"{SYSTEMD[expr]} {zone}"
    iterations = ITERATIONS if zone == "UTC" else ZONED_ITERATIONS
    runs, short = [], False
    for _ in range(REPEATS):
        one, _ = run(event, ORIGIN, 1)
        many, elapses = run(event, ORIGIN, iterations)
        runs.append((many - one) * 1e6 / max(len(elapses) - 1, 1))
        short = zone == "UTC" and len(elapses) < MIN_ELAPSES
    count = total = 0
    for origin in DIGEST_ORIGINS:
        _, elapses = run(event, origin, DIGEST_LEN)
        count += len(elapses)
        total += sum(elapses)
    return None if short else statistics.median(runs), f"{count}:{total}", \
        event


def main():
    print(f"{'expression':18} {'zone':18} {'next us':>9}  calendar event")
    lines = []
    for expr, zone in CASES:
        try:
            next_us, dig, event = time_case(expr, zone)
        except subprocess.CalledProcessError as e:
            print(f"systemd_bench: {expr} {zone}: {e.stderr.strip()}",
                  file=sys.stderr)
            continue
        shown = "-" if next_us is None else f"{next_us:.3f}"
        note = "process start subtracted" if next_us is not None else \
            f"fewer than {MIN_ELAPSES} elapses before 2199, not timed"
        print(f"{expr:18} {zone:18} {shown:>9}  {event}")
        lines.append(f"bench\tsystemd\t{expr}\t{zone}\t-\t{shown}\t"
                     f"{dig}\tcalendar {event}, {note}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
