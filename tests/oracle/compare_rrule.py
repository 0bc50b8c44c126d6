#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare sked's RRULE answers (rrule_driver) with dateutil's.

Usage: compare_rrule.py CASES.tsv DRIVER. CASES is gen_rrules.py's
output. Prints the number of agreeing cases per category and every
disagreement; exits 1 on any disagreement, or when fewer than 80% of the
valid cases were compared (so a broken oracle cannot pass the test).

Categories:
  agree          every next and prev list matches dateutil's.
  empty-refused  dateutil finds no occurrence at all (or proves the rule
                 empty); sked must refuse the rule at parse time.
  invalid        an invalid mutation; sked must refuse it with the byte
                 position the generator names.
  by-design      a valid rule of a class sked refuses, as docs/cron.md
                 says: a limit (BYHOUR, a day part) on a rule finer than a
                 day, BYWEEKNO, BYSETPOS with several times a day or below
                 MONTHLY, ordinal BYDAY lists libical 3.0 scopes wrongly in
                 a YEARLY rule, a combination libical cannot expand.
                 Counted, never compared.
  utc-until      a floating DTSTART with a UTC UNTIL, which RFC 5545
                 forbids and dateutil reads as no occurrence, while sked
                 applies the UNTIL to the instants in the schedule's zone.
Occurrences past 2200-12-31 (the end of the range of days sked expands a
rule of days over) are left out of dateutil's lists.
"""
import json
import subprocess
import sys
from collections import Counter

BY_DESIGN = ("limits a rule finer than a day", "is not supported",
             "BYSETPOS needs FREQ=MONTHLY or YEARLY",
             "libical refuses to expand it")
RANGE_END = "22001231T235959"


def main():
    cases_path, driver = sys.argv[1], sys.argv[2]
    cases = []
    with open(cases_path) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            cases.append((cols[:6], json.loads(cols[6])))
    req = "".join("\t".join(c[1:6]) + "\n" for c, _ in cases)
    out = subprocess.run([driver], input=req, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    if len(out) != len(cases):
        print("driver answered %d lines for %d cases" % (len(out), len(cases)))
        return 1
    counts, bad = Counter(), []
    for (cols, exp), got in zip(cases, out):
        kind = judge(cols, exp, got)
        if kind is None:
            counts["agree"] += 1
        elif kind.startswith("!"):
            bad.append((cols, exp, got, kind[1:]))
        else:
            counts[kind] += 1
    valid = sum(1 for _, e in cases if "error" not in e)
    compared = counts["agree"] + counts["empty-refused"]
    valid -= counts["by-design"] + counts["utc-until"]
    for k in sorted(counts):
        print("%-14s %d" % (k, counts[k]))
    print("disagree       %d" % len(bad))
    for cols, exp, got, why in bad:
        print("--- case %s: %s" % (cols[0], why))
        print("    value   %s (default %s)" % (cols[1], cols[2]))
        print("    after   %s  before %s" % (cols[4], cols[5]))
        print("    dateutil %s" % json.dumps(exp))
        print("    sked     %s" % got)
    print("compared %d of %d valid cases" % (compared, valid))
    if bad or compared < 0.8 * valid:
        return 1
    return 0


def judge(cols, exp, got):
    """Return None (agree), a category, or "!reason" for a disagreement."""
    if "error" in exp:
        parts = got.split(" ", 3)
        if parts[0] != "ERROR":
            return "!accepted an invalid value (%s)" % exp["kind"]
        if int(parts[2]) != exp["error"]:
            return "!%s: position %s, want %d" % (exp["kind"], parts[2],
                                                   exp["error"])
        return "invalid"
    if exp.get("empty"):
        if got.startswith("ERROR"):
            return "empty-refused"
        if "Z" in cols[1].split("UNTIL=")[-1][:17] and "TZID" not in cols[1]:
            return "utc-until"
        if "next" not in exp:
            return "!accepted a rule dateutil proves empty"
    if got.startswith("ERROR"):
        if any(w in got for w in BY_DESIGN):
            return "by-design"
        return "!refused a valid rule: " + got
    lists = got.split("\t")[1:]
    want = exp["next"] + exp["prev"]
    if len(lists) != len(want):
        return "!answered %d lists, want %d" % (len(lists), len(want))
    n = int(cols[3])
    for i, (g, w) in enumerate(zip(lists, want)):
        gl = g.split(" ") if g else []
        if gl and gl[-1] == "NONE":
            gl = gl[:-1]
        elif len(gl) < n and not (len(gl) == 0 and g == ""):
            return "!list %d stopped early: %s" % (i, g)
        # Past the range sked keeps of a rule of days, dateutil's only.
        end = [t for t in w if t > RANGE_END]
        if end and not [t for t in gl if t > RANGE_END]:
            w = [t for t in w if t <= RANGE_END]
            gl = gl[:len(w)]
        if gl != w:
            which = "next" if i < len(exp["next"]) else "prev"
            return "!%s list %d differs" % (which, i)
    return None


if __name__ == "__main__":
    sys.exit(main())
