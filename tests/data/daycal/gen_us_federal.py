#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write us_federal_2020_2030.tsv: the US federal holidays of 2020-2030 and
the weekdays they are observed on (Saturday: the Friday before; Sunday:
the Monday after), expanded by python-dateutil's rrule from the RFC 5545
rules listed in the file, which tests/unit/test_daycal.c reads too.

Usage: gen_us_federal.py > us_federal_2020_2030.tsv"""

import datetime

import dateutil
from dateutil import rrule

RULES = [
    ("new_year", "FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1"),
    ("mlk", "FREQ=YEARLY;BYMONTH=1;BYDAY=3MO"),
    ("washington", "FREQ=YEARLY;BYMONTH=2;BYDAY=3MO"),
    ("memorial", "FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO"),
    ("juneteenth", "DTSTART=20210101;FREQ=YEARLY;BYMONTH=6;BYMONTHDAY=19"),
    ("independence", "FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=4"),
    ("labor", "FREQ=YEARLY;BYMONTH=9;BYDAY=1MO"),
    ("columbus", "FREQ=YEARLY;BYMONTH=10;BYDAY=2MO"),
    ("veterans", "FREQ=YEARLY;BYMONTH=11;BYMONTHDAY=11"),
    ("thanksgiving", "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH"),
    ("christmas", "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25"),
]
FIRST = datetime.date(2020, 1, 1)
LAST = datetime.date(2030, 12, 31)


def expand(rule):
    start = "19700101"
    if rule.startswith("DTSTART="):
        start, rule = rule[8:16], rule[17:]
    r = rrule.rrulestr("DTSTART:%s\nRRULE:%s" % (start, rule))
    return [d.date() for d in r.between(datetime.datetime(2019, 1, 1),
                                        datetime.datetime(2032, 1, 1),
                                        inc=True)]


def main():
    days = {}
    for name, rule in RULES:
        for d in expand(rule):
            days.setdefault(d, name)
            wd = d.weekday()  # Monday 0 ... Sunday 6
            if wd == 5:
                days.setdefault(d - datetime.timedelta(days=1),
                                name + " (observed)")
            elif wd == 6:
                days.setdefault(d + datetime.timedelta(days=1),
                                name + " (observed)")
    print("# US federal holidays and their observed days, %s to %s," %
          (FIRST, LAST))
    print("# by python-dateutil %s (gen_us_federal.py). Do not edit." %
          dateutil.__version__)
    for name, rule in RULES:
        print("rule\t%s\t%s" % (name, rule))
    for d in sorted(days):
        if FIRST <= d <= LAST:
            print("day\t%s\t%s" % (d.isoformat(), days[d]))


if __name__ == "__main__":
    main()
