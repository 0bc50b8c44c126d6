# SPDX-License-Identifier: MIT
"""Generate seeded random cron cases for the differential test.

Writes one case per line, tab-separated:

    ID  KIND  EXPR  ZONE  AFTER  N  TAGS

KIND is "valid" (an expression SPEC 2.1 accepts) or "invalid:WHAT:FIELD"
(a mutation SPEC 2.1 rejects: WHAT names the mutation, FIELD the field
sked's error must name, "-" when none). EXPR is written in
sked's dialect; the oracles render it into their own. AFTER is an RFC 3339
UTC instant, N the number of occurrences asked for. TAGS is a comma list of
the features the expression uses, which the comparison needs to tell a
dialect difference from a bug:

    fixed      one value in each of second, minute and hour
    fixedform  fixed, but a time field is spelt as a range, step or list
    six        a seconds field
    dom, dow   the day field is restricted
    fullday    a restricted day field that covers every value (1-31, 0-7)
    domhigh    a day of month of 29 or more
    sunrange   a weekday range from Sunday to Sunday (0-0, SUN-0, 0-SUN)
    nth        d#n;  lastdow: dL;  mixdow: d#n or dL beside plain weekdays
    w          nW or LW;  lastdom: L;  macro: @daily and the like

The same seed gives the same cases on every machine with the same tz
database. Only the standard library is used.
"""

import argparse
import datetime as dt
import os
import random
import re
import sys
from zoneinfo import ZoneInfo

CORE_ZONES = [
    "Europe/Paris", "America/New_York", "Australia/Lord_Howe",
    "Pacific/Chatham", "America/Sao_Paulo", "Europe/London",
    "Asia/Kolkata",
]
MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN",
          "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
MACROS = ["@yearly", "@annually", "@monthly", "@weekly", "@daily",
          "@midnight", "@hourly"]
SUNDAY_RANGE = re.compile(r"(^|,)(0|sun)-(0|sun)(/|,|$)", re.IGNORECASE)
MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
START_MIN = int(dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc).timestamp())
START_MAX = int(dt.datetime(2100, 1, 1, tzinfo=dt.timezone.utc).timestamp())


class Field:
    """One cron field: its name in sked's errors, bounds and names."""

    def __init__(self, name, lo, hi, names=None, name_base=0):
        self.name, self.lo, self.hi = name, lo, hi
        self.names, self.name_base = names, name_base


SECOND = Field("second", 0, 59)
MINUTE = Field("minute", 0, 59)
HOUR = Field("hour", 0, 23)
DOM = Field("day-of-month", 1, 31)
MONTH = Field("month", 1, 12, MONTHS, 1)
DOW = Field("day-of-week", 0, 7, DAYS, 0)


def odd_case(rng, word):
    """Return WORD in upper, lower or title case."""
    return rng.choice([word.upper(), word.lower(), word.title()])


def value_text(rng, field, v):
    """Write value V of FIELD, as a name now and then."""
    if field.names and rng.random() < 0.4:
        index = v - field.name_base
        if 0 <= index < len(field.names):
            return odd_case(rng, field.names[index])
    return str(v)


def gen_item(rng, field):
    """Return one list item: a value, a range or a step; and its values."""
    lo, hi = field.lo, field.hi
    span = hi - lo + 1
    kind = rng.choices(["value", "range", "star_step", "range_step",
                        "start_step"], [5, 3, 2, 1, 1])[0]
    if kind == "value":
        v = rng.randint(lo, hi)
        return value_text(rng, field, v), {v}
    if kind == "star_step":
        n = rng.randint(1, max(1, span // 2))
        return f"*/{n}", set(range(lo, hi + 1, n))
    a = rng.randint(lo, hi)
    if kind == "start_step":
        n = rng.randint(1, span)
        return f"{value_text(rng, field, a)}/{n}", set(range(a, hi + 1, n))
    if field is DOW and kind == "range" and 0 < a < 7 and rng.random() < 0.2:
        return f"{value_text(rng, field, a)}-0", set(range(a, 8))
    b = rng.randint(a, hi)
    text = f"{value_text(rng, field, a)}-{value_text(rng, field, b)}"
    if kind == "range_step":
        n = rng.randint(1, max(1, b - a + 1))
        return f"{text}/{n}", set(range(a, b + 1, n))
    return text, set(range(a, b + 1))


def gen_list(rng, field):
    """Return a restricted field: one item or a short list; and its values."""
    items, values = [], set()
    for _ in range(rng.choices([1, 2, 3], [6, 3, 1])[0]):
        text, vals = gen_item(rng, field)
        items.append(text)
        values |= vals
    return ",".join(items), values


def gen_time_field(rng, field, fixed_bias):
    """Return a second, minute or hour field and its set of values."""
    if rng.random() < fixed_bias:
        v = rng.randint(field.lo, field.hi)
        return str(v), {v}
    if rng.random() < 0.15:
        return "*", set(range(field.lo, field.hi + 1))
    return gen_list(rng, field)


def gen_dom_extension(rng, tags):
    """Return a day-of-month field using L, nW or LW."""
    kind = rng.choice(["L", "W", "LW", "listL"])
    if kind == "L":
        tags.add("lastdom")
        return "L"
    if kind == "listL":
        tags.add("lastdom")
        return f"{rng.randint(1, 28)},L"
    tags.add("w")
    if kind == "LW":
        return "LW"
    return f"{rng.randint(1, 28)}W"


def gen_dow_extension(rng, tags):
    """Return a day-of-week field using d#n or dL, sometimes in a list."""
    d = rng.randint(0, 7)
    if rng.random() < 0.5:
        tags.add("nth")
        n = rng.randint(1, 5)
        item = f"{value_text(rng, DOW, d) if d < 7 else '7'}#{n}"
        if rng.random() < 0.2:
            tags.add("mixdow")
            item += f",{rng.randint(0, 6)}#{rng.randint(1, 5)}"
    else:
        tags.add("lastdow")
        item = f"{d}L"
    if rng.random() < 0.15:
        tags.add("mixdow")
        item += f",{rng.randint(0, 6)}"
    return item


def can_fire(dom_values, month_values):
    """Tell whether some month holds one of the days (Feb 29 counts)."""
    longest = max(MONTH_DAYS[m - 1] for m in month_values)
    return min(dom_values) <= longest


def gen_day_fields(rng, month_values, tags):
    """Return the day-of-month and day-of-week fields."""
    mode = rng.choices(["none", "dom", "dow", "both"], [3, 3, 3, 2])[0]
    dom_text = rng.choice(["*", "*", "?"])
    dow_text = rng.choice(["*", "*", "?"])
    if mode in ("dom", "both"):
        tags.add("dom")
        if rng.random() < 0.2:
            dom_text = gen_dom_extension(rng, tags)
        else:
            dom_text, values = gen_list(rng, DOM)
            if len(values) == 31:
                tags.add("fullday")
            if max(values) >= 29:
                tags.add("domhigh")
            if mode == "dom" and not can_fire(values, month_values):
                dom_text = str(rng.randint(1, 28))
    if mode in ("dow", "both"):
        tags.add("dow")
        if rng.random() < 0.25:
            dow_text = gen_dow_extension(rng, tags)
        else:
            dow_text, values = gen_list(rng, DOW)
            if len({v % 7 for v in values}) == 7:
                tags.add("fullday")
            if SUNDAY_RANGE.search(dow_text):
                tags.add("sunrange")
    if dom_text == "?" and dow_text == "?":
        dow_text = "*"
    return dom_text, dow_text


def gen_expression(rng):
    """Return a random SPEC-valid expression and its tags."""
    tags = set()
    if rng.random() < 0.05:
        macro = rng.choice(MACROS)
        tags.update(["macro"] if macro == "@hourly" else ["macro", "fixed"])
        return odd_case(rng, macro), tags
    six = rng.random() < 0.25
    fixed_bias = rng.choice([0.2, 0.5, 0.8])
    sec, sec_values = gen_time_field(rng, SECOND, 0.7) if six else ("0", {0})
    minute, min_values = gen_time_field(rng, MINUTE, fixed_bias)
    hour, hour_values = gen_time_field(rng, HOUR, fixed_bias)
    month_values = set(range(1, 13))
    month = "*"
    if rng.random() < 0.3:
        month, month_values = gen_list(rng, MONTH)
    dom, dow = gen_day_fields(rng, month_values, tags)
    time_fields = [sec, minute, hour]
    if all(len(v) == 1 for v in [sec_values, min_values, hour_values]):
        tags.add("fixed")
        if not all(f.isdigit() for f in time_fields):
            tags.add("fixedform")
    fields = [minute, hour, dom, month, dow]
    if six:
        tags.add("six")
        fields.insert(0, sec)
    return " ".join(fields), tags


# ---- invalid expressions ---------------------------------------------------

def out_of_range(rng):
    """Put a value just outside one field's range."""
    fields = [("minute", 0, ["60", "99"]), ("hour", 1, ["24", "25"]),
              ("day-of-month", 2, ["32", "40"]),
              ("month", 3, ["0", "13"]), ("day-of-week", 4, ["8", "9"])]
    name, index, bad = rng.choice(fields)
    parts = ["0", "0", "1", "*", "*"]
    parts[index] = rng.choice(bad)
    if rng.random() < 0.5:
        parts[index] = f"1-{parts[index]}"
    return " ".join(parts), name


def step_zero(rng):
    field = rng.choice([(0, "minute"), (1, "hour"), (2, "day-of-month")])
    parts = ["*", "*", "*", "*", "*"]
    parts[field[0]] = rng.choice(["*/0", "1-5/0", "0/0"])
    return " ".join(parts), field[1]


def reversed_range(rng):
    field = rng.choice([(0, "minute", "30-10"), (1, "hour", "5-3"),
                        (2, "day-of-month", "20-1"), (3, "month", "NOV-FEB"),
                        (4, "day-of-week", "5-1")])
    parts = ["0", "0", "*", "*", "*"]
    parts[field[0]] = field[2]
    return " ".join(parts), field[1]


def unknown_name(rng):
    field = rng.choice([(3, "month", "JANUARY"), (3, "month", "FOO"),
                        (4, "day-of-week", "MONDAY"),
                        (4, "day-of-week", "XYZ"), (3, "month", "MON"),
                        (4, "day-of-week", "JAN")])
    parts = ["0", "0", "*", "*", "*"]
    parts[field[0]] = field[2]
    return " ".join(parts), field[1]


def field_count(rng):
    n = rng.choice([1, 2, 3, 4, 7, 8])
    return " ".join(["0"] * n), "-"


def trailing_garbage(rng):
    bad = rng.choice(["5x", "5,", "5-", "*/", "5//2", "1-2-3", "*5",
                      "5/", ",5", "--1", "5#", "#2"])
    index = rng.randint(0, 1)
    parts = ["0", "0", "*", "*", "*"]
    parts[index] = bad
    return " ".join(parts), ["minute", "hour"][index]


def too_long(rng):
    """Write a list that SPEC would accept but for its length (> 256)."""
    values = []
    while len(",".join(values)) + 8 <= 256 + rng.randint(0, 40):
        values.append(str(rng.randint(0, 59)))
    return ",".join(values) + " * * * *", "-"


def never_fires(rng):
    dom, months = rng.choice([("30", "2"), ("31", "2"), ("31", "4"),
                              ("30,31", "FEB"), ("31", "4,6,9,11"),
                              ("31", "APR-APR")])
    return f"0 0 {dom} {months} *", "-"


INVALID_KINDS = {
    "range": out_of_range, "step0": step_zero, "reversed": reversed_range,
    "name": unknown_name, "count": field_count, "garbage": trailing_garbage,
    "toolong": too_long, "never": never_fires,
}


# ---- zones and start instants ----------------------------------------------

def system_zones():
    """Return the canonical zone names of the system tz database."""
    tzdir = os.environ.get("TZDIR") or "/usr/share/zoneinfo"
    names = []
    try:
        with open(os.path.join(tzdir, "zone1970.tab"), encoding="utf-8") as f:
            for line in f:
                if not line.startswith("#") and line.strip():
                    names.append(line.split("\t")[2].strip())
    except OSError:
        return list(CORE_ZONES)
    return sorted(set(names))


def pick_zone(rng, zones):
    roll = rng.random()
    if roll < 0.2:
        return "UTC"
    if roll < 0.65:
        return rng.choice(CORE_ZONES)
    return rng.choice(zones)


def offset_at(tz, t):
    return dt.datetime.fromtimestamp(t, tz).utcoffset()


def transitions_in_year(tz, year):
    """Return the instants (seconds) where TZ's UTC offset changes in YEAR."""
    t = int(dt.datetime(year, 1, 1, tzinfo=dt.timezone.utc).timestamp())
    end = t + 366 * 86400
    found = []
    while t < end:
        nxt = t + 86400
        if offset_at(tz, t) != offset_at(tz, nxt):
            lo, hi = t, nxt
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if offset_at(tz, mid) == offset_at(tz, lo):
                    lo = mid
                else:
                    hi = mid
            found.append(hi)
        t = nxt
    return found


def pick_after(rng, zone):
    """Return a start instant: uniform, aligned, or close to a DST change."""
    roll = rng.random()
    t = rng.randint(START_MIN, START_MAX - 1)
    if roll < 0.1:
        return t - t % rng.choice([60, 3600, 86400])
    if roll < 0.35 and zone != "UTC":
        changes = transitions_in_year(ZoneInfo(zone), rng.randint(1975, 2098))
        if changes:
            change = rng.choice(changes)
            return change - rng.choice([rng.randint(0, 6 * 3600),
                                        rng.randint(0, 4 * 86400),
                                        -rng.randint(0, 3600)])
    return t


def rfc3339(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


# ---- output ----------------------------------------------------------------

def write_cases(out, seed, valid_count, invalid_count):
    rng = random.Random(seed)
    zones = system_zones()
    for i in range(valid_count):
        expr, tags = gen_expression(rng)
        zone = pick_zone(rng, zones)
        after = rfc3339(pick_after(rng, zone))
        n = rng.choice([4, 8, 8, 16])
        tag_text = ",".join(sorted(tags)) or "-"
        out.write(f"v{i}\tvalid\t{expr}\t{zone}\t{after}\t{n}\t{tag_text}\n")
    kinds = sorted(INVALID_KINDS)
    for i in range(invalid_count):
        kind = kinds[i % len(kinds)]
        expr, field = INVALID_KINDS[kind](rng)
        out.write(f"x{i}\tinvalid:{kind}:{field}\t{expr}\tUTC\t"
                  f"2025-01-01T00:00:00Z\t1\t-\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=20250330)
    parser.add_argument("--valid", type=int, default=3000)
    parser.add_argument("--invalid", type=int, default=400)
    args = parser.parse_args()
    write_cases(sys.stdout, args.seed, args.valid, args.invalid)


if __name__ == "__main__":
    main()
