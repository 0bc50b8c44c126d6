#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seeded random RRULE cases, with python3-dateutil's answers.

Writes one TSV line per case: id, the rrule value (newlines written
"\\n"), the default start, N, the "after" points, the "before" points (all
YYYYMMDDTHHMMSS wall times, naive datetimes being floating local time) and
a JSON object holding dateutil's answer: "next", for each after point the
N occurrences >= it; "prev", for each before point the N occurrences <= it,
latest first; or, for the invalid mutations, "error": the byte position
sked must report, and "kind".

Rules cover every FREQ from SECONDLY to YEARLY with INTERVAL, BYMONTH,
BYWEEKNO, BYYEARDAY, BYMONTHDAY (negative too), BYDAY with ordinals,
BYHOUR/BYMINUTE/BYSECOND, BYSETPOS, WKST, COUNT, UNTIL (floating and
UTC) and DTSTART, or none (then the default start, floored to the rule's
resolution as sked's contract says, is dateutil's dtstart). Only what
RFC 5545 3.3.10 allows is generated as valid. dateutil is given the parts
directly (rrule(...)), not the text, so the text reader is checked too.
"""
import argparse
import datetime as dt
import json
import random
import signal
import sys

from dateutil import rrule as du

FREQS = ["SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY",
         "YEARLY"]
DU_FREQ = {"SECONDLY": du.SECONDLY, "MINUTELY": du.MINUTELY,
           "HOURLY": du.HOURLY, "DAILY": du.DAILY, "WEEKLY": du.WEEKLY,
           "MONTHLY": du.MONTHLY, "YEARLY": du.YEARLY}
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]  # dateutil's order
DU_DAYS = [du.MO, du.TU, du.WE, du.TH, du.FR, du.SA, du.SU]
# How far after DTSTART the points go: dateutil walks from DTSTART.
HORIZON = {"SECONDLY": dt.timedelta(hours=3), "MINUTELY": dt.timedelta(days=3),
           "HOURLY": dt.timedelta(days=120), "DAILY": dt.timedelta(days=1500),
           "WEEKLY": dt.timedelta(days=3000),
           "MONTHLY": dt.timedelta(days=9000),
           "YEARLY": dt.timedelta(days=30000)}
N = 5
FMT = "%Y%m%dT%H%M%S"


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def pick(rng, lo, hi, k, neg=False):
    vals = rng.sample(range(lo, hi + 1), k)
    return [-v if neg and rng.random() < 0.35 else v for v in vals]


def gen_parts(rng):
    """Return (freq, parts): parts maps names to lists or values."""
    freq = rng.choice(FREQS)
    p = {}
    coarse = FREQS.index(freq) >= 3
    if rng.random() < 0.5:
        p["INTERVAL"] = rng.randint(2, 6 if coarse else 12)
    if rng.random() < (0.3 if coarse else 0.08):
        p["BYMONTH"] = pick(rng, 1, 12, rng.randint(1, 3))
    if freq == "YEARLY" and rng.random() < 0.2:
        p["BYWEEKNO"] = pick(rng, 1, 53, rng.randint(1, 2), neg=True)
    # sked refuses SECONDLY with BYMONTH, BYMONTHDAY, BYYEARDAY, MINUTELY
    # with BYYEARDAY and BYSETPOS below DAILY (libical is wrong or slow
    # there; rrule_parse.c): those are invalid cases below.
    sec = freq == "SECONDLY"
    if sec and "BYMONTH" in p:
        del p["BYMONTH"]
    if freq in ("YEARLY", "HOURLY") and \
            rng.random() < (0.15 if coarse else 0.04):
        p["BYYEARDAY"] = pick(rng, 1, 366, rng.randint(1, 3), neg=True)
    if freq != "WEEKLY" and not sec and \
            rng.random() < (0.3 if coarse else 0.08):
        p["BYMONTHDAY"] = pick(rng, 1, 31, rng.randint(1, 3), neg=True)
    if rng.random() < 0.4:
        days = rng.sample(range(7), rng.randint(1, 3))
        ordinals = freq in ("MONTHLY", "YEARLY") and "BYWEEKNO" not in p
        out = []
        for d in days:
            n = 0
            if ordinals and rng.random() < 0.45:
                top = 5 if freq == "MONTHLY" or "BYMONTH" in p else 53
                n = rng.choice([1, 1, 2, 3, 4, -1, -1, -2, top]) * \
                    (-1 if rng.random() < 0.2 else 1)
                n = max(-top, min(top, n)) or 1
            out.append((n, d))
        p["BYDAY"] = out
    if rng.random() < 0.35:
        p["BYHOUR"] = pick(rng, 0, 23, rng.randint(1, 3))
    if rng.random() < 0.35:
        p["BYMINUTE"] = pick(rng, 0, 59, rng.randint(1, 3))
    if rng.random() < 0.3:
        p["BYSECOND"] = pick(rng, 0, 59, rng.randint(1, 3))
    if coarse and any(k.startswith("BY") for k in p) and rng.random() < 0.2:
        p["BYSETPOS"] = pick(rng, 1, 6, rng.randint(1, 2), neg=True)
    if rng.random() < 0.25:
        p["WKST"] = rng.randrange(7)
    return freq, p


def render_part(name, v):
    if name == "BYDAY":
        return ",".join((str(n) if n else "") + DAYS[d] for n, d in v)
    if name == "WKST":
        return DAYS[v]
    if isinstance(v, list):
        return ",".join(str(x) for x in v)
    return str(v)


def floor_start(freq, t):
    if freq == "SECONDLY":
        return t
    if freq == "MINUTELY":
        return t.replace(second=0)
    if freq == "HOURLY":
        return t.replace(minute=0, second=0)
    return t.replace(hour=0, minute=0, second=0)


def du_rule(freq, p, dtstart, until):
    kw = {}
    for name, key in (("BYMONTH", "bymonth"), ("BYWEEKNO", "byweekno"),
                      ("BYYEARDAY", "byyearday"),
                      ("BYMONTHDAY", "bymonthday"), ("BYHOUR", "byhour"),
                      ("BYMINUTE", "byminute"), ("BYSECOND", "bysecond"),
                      ("BYSETPOS", "bysetpos")):
        if name in p:
            kw[key] = p[name]
    if "BYDAY" in p:
        kw["byweekday"] = [DU_DAYS[d](n) if n else DU_DAYS[d]
                           for n, d in p["BYDAY"]]
    if "WKST" in p:
        kw["wkst"] = p["WKST"]
    if "COUNT" in p:
        kw["count"] = p["COUNT"]
    return du.rrule(DU_FREQ[freq], dtstart=dtstart, until=until,
                    interval=p.get("INTERVAL", 1), **kw)


def rand_time(rng, lo_year, hi_year):
    t = dt.datetime(lo_year, 1, 1) + dt.timedelta(
        seconds=rng.randrange((hi_year - lo_year) * 365 * 86400))
    return t


def make_value(rng, freq, p, dtstart, has_dtstart, until):
    parts = [("FREQ", freq)] + [(k, render_part(k, v)) for k, v in p.items()
                                if k not in ("COUNT",)]
    if "COUNT" in p:
        parts.append(("COUNT", str(p["COUNT"])))
    if until is not None:
        z = rng.random() < 0.3
        parts.append(("UNTIL", until.strftime(FMT) + ("Z" if z else "")))
    rng.shuffle(parts)
    parts.sort(key=lambda kv: kv[0] != "FREQ" and rng.random() < 0.7)
    text = ";".join(k + "=" + v for k, v in parts)
    if rng.random() < 0.15:
        text = text.lower()
    if has_dtstart:
        nl = "\r\n" if rng.random() < 0.2 else "\n"
        return "DTSTART:" + dtstart.strftime(FMT) + nl + "RRULE:" + text
    return ("RRULE:" + text) if rng.random() < 0.3 else text


def valid_case(rng, idx):
    freq, p = gen_parts(rng)
    start = rand_time(rng, 1990, 2060)
    has_dtstart = rng.random() < 0.55
    dtstart = start if has_dtstart else floor_start(freq, start)
    horizon = HORIZON[freq] * min(p.get("INTERVAL", 1), 3)
    # libical 3.0 expands no year after 2582: stay well before it.
    horizon = min(horizon, dt.datetime(2300, 1, 1) - dtstart)
    until = None
    r = rng.random()
    if r < 0.2:
        p["COUNT"] = rng.randint(1, 30)
    elif r < 0.4:
        until = dtstart + horizon * rng.random()
    value = make_value(rng, freq, p, dtstart, has_dtstart, until)
    cols_head = [str(idx), value.replace("\r", "\\r").replace("\n", "\\n"),
                 start.strftime(FMT), str(N)]
    try:
        rule = du_rule(freq, p, dtstart, until)
    except ValueError:
        # dateutil proves the rule empty ("byxxx generates an empty set":
        # an INTERVAL that never meets a BYHOUR, BYMINUTE or BYSECOND).
        return cols_head + [dtstart.strftime(FMT)] * 2, {"empty": True}
    afters = [dtstart - dt.timedelta(days=1), dtstart,
              dtstart + horizon * rng.random(),
              dtstart + horizon * rng.random() / 50]
    rng.shuffle(afters)
    befores = [dtstart + horizon * rng.random(), dtstart - dt.timedelta(1)]
    exp = {"next": [], "prev": []}
    for a in afters:
        a = a.replace(microsecond=0)
        exp["next"].append([x.strftime(FMT) for x in
                            rule.xafter(a, count=N, inc=True)])
    for b in befores:
        b = b.replace(microsecond=0)
        got = list(rule.between(dtstart, b, inc=True))[-N:]
        exp["prev"].append([x.strftime(FMT) for x in reversed(got)])
    exp["empty"] = rule.after(dtstart, inc=True) is None
    cols = cols_head + [
            ",".join(a.replace(microsecond=0).strftime(FMT) for a in afters),
            ",".join(b.replace(microsecond=0).strftime(FMT) for b in befores)]
    return cols, exp


# Invalid values: (kind, value, the byte sked must point at).
def invalid_cases(rng):
    d = rand_time(rng, 1990, 2060).strftime(FMT)
    dd = "DTSTART:" + d + "\n"
    m = rng.randint(13, 99)
    yield "unknown-part", "FREQ=DAILY;BYFOO=1", 11
    yield "bad-freq", "FREQ=FORTNIGHTLY", 5
    yield "setpos-zero", "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0", 31
    yield "setpos-range", "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=-%d" % \
        rng.randint(367, 999), 31
    yield "setpos-alone", "FREQ=MONTHLY;BYSETPOS=1", 13
    yield "month-range", "FREQ=YEARLY;BYMONTH=%d" % m, 20
    yield "count-zero", "FREQ=DAILY;COUNT=0", 17
    yield "count-until", "FREQ=DAILY;COUNT=3;UNTIL=20300101T000000", 19
    yield "never", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=%d" % \
        rng.choice([30, 31]), 0
    yield "never-april-31", "FREQ=MONTHLY;BYMONTH=4,6;BYMONTHDAY=31", 0
    yield "until-before", dd + "RRULE:FREQ=DAILY;UNTIL=19800101T000000", 41
    yield "dtstart-date", "DTSTART:" + d[:8] + "\nRRULE:FREQ=DAILY", 8
    yield "dtstart-value-date", "DTSTART;VALUE=DATE:" + d[:8] + \
        "\nRRULE:FREQ=DAILY", 14
    yield "dtstart-z", "DTSTART:" + d + "Z\nRRULE:FREQ=DAILY", 23
    yield "tzid-empty", "DTSTART;TZID=:" + d + "\nRRULE:FREQ=DAILY", 13
    yield "exdate", dd + "EXDATE:" + d + "\nRRULE:FREQ=DAILY", 24
    yield "other-line", dd + "SUMMARY:x\nRRULE:FREQ=DAILY", 24
    yield "weekno-monthly", "FREQ=MONTHLY;BYWEEKNO=3", 13
    yield "ordinal-daily", "FREQ=DAILY;BYDAY=1MO", 11
    yield "no-freq", "INTERVAL=2", 0
    yield "syntax", "FREQ=DAILY;;INTERVAL=2", 11
    yield "hour-range", "FREQ=DAILY;BYHOUR=24", 18
    yield "setpos-subdaily", "FREQ=HOURLY;BYMINUTE=1,2;BYSETPOS=1", 25
    yield "secondly-yearday", "FREQ=SECONDLY;BYYEARDAY=184", 14
    yield "minutely-yearday", "FREQ=MINUTELY;BYYEARDAY=184", 14


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=5545)
    ap.add_argument("--valid", type=int, default=2000)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    signal.signal(signal.SIGALRM, on_alarm)
    out = sys.stdout
    idx = 0
    dropped = 0
    while idx < args.valid:
        state = rng.getstate()
        signal.setitimer(signal.ITIMER_REAL, 0.4)
        try:
            cols, exp = valid_case(rng, idx)
        except Timeout:
            dropped += 1
            rng.setstate(state)
            rng.random()  # move on to another case
            continue
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        out.write("\t".join(cols) + "\t" + json.dumps(exp) + "\n")
        idx += 1
    for _ in range(max(1, args.valid // 200)):
        for kind, value, pos in invalid_cases(rng):
            cols = [str(idx), value.replace("\n", "\\n"),
                    "20260101T000000", str(N), "20260101T000000",
                    "20260101T000000"]
            exp = {"error": pos, "kind": kind}
            out.write("\t".join(cols) + "\t" + json.dumps(exp) + "\n")
            idx += 1
    sys.stderr.write("gen_rrules: %d valid cases (%d dropped: dateutil took "
                     "over 0.4 s)\n" % (args.valid, dropped))


if __name__ == "__main__":
    main()
