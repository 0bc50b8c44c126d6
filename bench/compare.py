#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare two runs of `make bench`: bench/compare.py A.jsonl B.jsonl.

Each file holds one JSON object per figure (bench/results/README.md).
Figures are matched on (bench, case, zone, peer, unit); for each one in
both runs the line shows A's value, B's value and B / A. Figures found in
only one run are counted at the end. Exits 2 on bad input.
"""

import json
import sys


def load(path):
    figures = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                o = json.loads(line)
                key = (o["bench"], o["case"], o["zone"], o["peer"], o["unit"])
                figures[key] = float(o["value"])
            except (ValueError, KeyError, TypeError) as e:
                sys.exit(f"compare.py: {path}:{number}: not a figure ({e})")
    return figures


def main(argv):
    if len(argv) != 3:
        print("usage: bench/compare.py A.jsonl B.jsonl", file=sys.stderr)
        return 2
    a, b = load(argv[1]), load(argv[2])
    print(f"{'bench':12} {'case':38} {'zone':16} {'peer':14} {'unit':12}"
          f" {'A':>12} {'B':>12} {'B/A':>7}")
    for key in a:
        if key not in b:
            continue
        bench, case, zone, peer, unit = key
        ratio = b[key] / a[key] if a[key] else float("inf")
        print(f"{bench:12} {case[:38]:38} {zone:16} {peer:14} {unit:12}"
              f" {a[key]:12.3f} {b[key]:12.3f} {ratio:7.2f}")
    only_a = sum(1 for k in a if k not in b)
    only_b = sum(1 for k in b if k not in a)
    print(f"{len(a) - only_a} figures in both; {only_a} only in A, "
          f"{only_b} only in B")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
