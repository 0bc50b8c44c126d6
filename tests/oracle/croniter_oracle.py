# SPDX-License-Identifier: MIT
"""Answer the differential cases with python3-croniter (Debian, 1.3.5).

Reads the cases of gen_cases.py on stdin and writes, per case,

    ID  RENDERED  RESULT

RENDERED is the expression in croniter's dialect; RESULT is the next N
occurrences in UTC RFC 3339 separated by spaces ("NONE" after the last one
when the search stops early), or "REJECT <message>" when croniter refuses
the expression.

Rendering keeps the meaning and changes only the spelling: the seconds
field moves from first to last; "?" becomes "*"; "dL" becomes croniter's
"Ld"; in the 6-field form a weekday 7 becomes 0, because croniter 1.3.5
maps 7 to Sunday only in 5-field expressions.

Zones are zoneinfo (the system tz database, the one sked reads). Each
occurrence is asked from a fresh start at the previous one: croniter's
iterator carries a DST correction relative to its first start that moves
later occurrences by the offset change once a DST change has passed.
"""

import datetime as dt
import re
import sys
from zoneinfo import ZoneInfo

from croniter import croniter

DOW_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
PLAIN_ITEM = re.compile(r"^(\*|\w+)(?:-(\w+))?(?:/(\d+))?$")


def dow_number(word):
    word = word.lower()
    return DOW_NAMES.index(word) if word in DOW_NAMES else int(word)


def dow_values(item):
    """Return the weekdays a plain item (value, range, step) stands for."""
    m = PLAIN_ITEM.match(item)
    if not m:
        return None
    try:
        lo = 0 if m.group(1) == "*" else dow_number(m.group(1))
        hi = None if m.group(2) is None else dow_number(m.group(2))
    except ValueError:
        return None
    if hi is not None:
        hi = 7 if hi == 0 and lo > 0 else hi
    else:
        hi = 7 if m.group(1) == "*" or m.group(3) else lo
    return set(range(lo, hi + 1, int(m.group(3) or 1)))


def render_dow_item(item, six):
    """Spell one weekday item for croniter."""
    last = re.match(r"^(\d)L$", item)
    if last:
        return f"L{last.group(1)}"
    if "#" in item:
        day, nth = item.split("#")
        return f"{0 if day == '7' else day}#{nth}"
    values = dow_values(item)
    if six and item != "*" and values is not None and 7 in values:
        return ",".join(str(v % 7) for v in sorted(values))
    return item


def render(expr):
    """Return EXPR in croniter's dialect."""
    if expr.startswith("@"):
        return expr
    fields = expr.split(" ")
    if len(fields) not in (5, 6):
        return expr
    six = len(fields) == 6
    if six:
        fields = fields[1:] + fields[:1]
    fields = ["*" if f == "?" else f for f in fields]
    fields[4] = ",".join(render_dow_item(i, six) for i in fields[4].split(","))
    return " ".join(fields)


def rfc3339(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def occurrences(expr, zone, after, count):
    """Return the next COUNT occurrences as RFC 3339 strings."""
    tz = ZoneInfo(zone)
    start = dt.datetime.fromisoformat(after.replace("Z", "+00:00"))
    it = croniter(expr, start.astimezone(tz))
    found, t = [], start.timestamp()
    for _ in range(count):
        try:
            t = int(it.get_next(float, start_time=float(t)))
        except (Exception,):  # CroniterBadDateError, years past 9999
            found.append("NONE")
            break
        found.append(rfc3339(t))
    return " ".join(found)


def answer(line):
    case_id, _kind, expr, zone, after, count = line.split("\t")[:6]
    rendered = render(expr)
    try:
        croniter(rendered, dt.datetime(2000, 1, 1))
    except Exception as e:  # every croniter parse error
        return f"{case_id}\t{rendered}\tREJECT {type(e).__name__}"
    return f"{case_id}\t{rendered}\t" + occurrences(rendered, zone, after,
                                                      int(count))


def main():
    for line in sys.stdin:
        if line.strip():
            print(answer(line.rstrip("\n")))


if __name__ == "__main__":
    main()
