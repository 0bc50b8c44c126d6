# SPDX-License-Identifier: MIT
"""The twenty holiday rules of the calendar benchmarks, read from
bench/holidays.h (one X("...") per rule), the file sked's benchmarks
compile: both sides compare on the same rules."""

import pathlib
import re

HEADER = pathlib.Path(__file__).resolve().parent.parent / "holidays.h"
RULES = re.findall(r'X\("(FREQ=[^"]+)"\)', HEADER.read_text())
assert len(RULES) == 20, "bench/holidays.h: expected 20 rules, got %d" % len(RULES)
