# SPDX-License-Identifier: MIT
"""Compare sked's cron occurrences with croniter's and croner's.

Usage: compare.py CASES CRONITER_OUT CRONER_OUT DRIVER

CASES comes from gen_cases.py, the two oracle files from croniter_oracle.py
and croner_oracle.mjs, and DRIVER is the cron_driver program, run here
four times: next under "once" and "cadence", then prev from the last
occurrence under each policy. The categories and the rules are described
in test_cron_differential.sh, which runs this; CATEGORIES below holds the
one-line reasons printed in the summary.

Exit status 0 when every compared value matched and enough cases were
compared, 1 otherwise.
"""

import datetime as dt
import os
import subprocess
import sys
from zoneinfo import ZoneInfo

from croniter import croniter

MIN_COMPARED = 0.80
SHOW_MISMATCHES = int(os.environ.get("SKED_ORACLE_SHOW", "8"))
MAX_DERIVE_SPAN = 3 * 366 * 86400
# A start this soon after an offset change may sit in a repeated hour.
DST_LOOKBACK = 2 * 86400
# Zones whose history tzdata 2025c (Node's ICU) changed from 2025b.
TZDATA_DIFFERS = {"America/Tijuana", "America/Ensenada",
                  "America/Santa_Isabel", "Mexico/BajaNorte"}

CATEGORIES = {
    "croniter-w": "croniter 1.3.5 has no nW/LW: compared with croner alone",
    "croniter-mixdow": "croniter 1.3.5 refuses plain weekdays beside d#n/dL:"
                       " compared with croner alone",
    "croniter-fullday": "croniter reads a day field covering every value"
                        " (1-31, 0-7, */1) as '*' (AND); SPEC 2.1 only"
                        " '*'/'?': compared with croner alone",
    "croniter-nth-or": "croniter ANDs d#n/dL with a restricted day-of-month;"
                       " SPEC 2.1 ORs: compared with croner alone",
    "croniter-dst": "the UTC offset changes inside the window; croniter"
                    " misplaces occurrences there: cadence compared with"
                    " croner, once derived from croner",
    "croner-fixedform": "DST window and a one-value time field written as a"
                        " range/step/list: croner calls it an interval job,"
                        " SPEC 2.2 a fixed-time one: not compared",
    "once-not-derived": "DST window, not fixed-time, and the gap check needs"
                        " croniter's dialect or a short window: once not"
                        " compared (cadence still is)",
    "croniter-short-month": "the oracles disagree and the day-of-month"
                            " field holds a day >= 29: croniter jumps past"
                            " the end of a shorter month (*/10 after Feb 21"
                            " skips Mar 1): compared with croner alone",
    "sunday-range": "the oracles disagree on a weekday range from Sunday to"
                    " Sunday (0-SUN: croner every day, croniter Sunday):"
                    " not compared",
    "tzdata-differs": "the oracles disagree in a zone whose history differs"
                      " between Node's ICU tz data and the system's: not"
                      " compared",
    "oracle-rejects": "one oracle refuses a SPEC-valid expression or zone:"
                      " compared with the other",
    "oracles-disagree": "the oracles disagree for no documented reason:"
                        " not compared (listed below)",
}

INVALID_EXCEPTIONS = {
    "never": "both oracles parse it and find no occurrence; SPEC 2.1 rejects",
    "toolong": "both oracles take any length; SPEC 2.1 caps it at 256 bytes",
    "count": "croner reads a 7th field as the year; SPEC 2.1 rejects it",
}


# ---- reading ---------------------------------------------------------------

class Case:
    def __init__(self, line):
        cols = line.rstrip("\n").split("\t")
        self.id, self.kind, self.expr, self.zone = cols[:4]
        self.after, self.count = cols[4], int(cols[5])
        self.tags = set(cols[6].split(",")) - {"-"}
        self.results = {}


def read_cases(path):
    with open(path, encoding="utf-8") as f:
        return [Case(line) for line in f if line.strip()]


def read_oracle(path, cases, name):
    """Attach an oracle's answers to the cases, by id."""
    by_id = {c.id: c for c in cases}
    with open(path, encoding="utf-8") as f:
        for line in f:
            case_id, rendered, result = line.rstrip("\n").split("\t", 2)
            by_id[case_id].results[name] = result
            by_id[case_id].results[name + ":rendered"] = rendered


def run_driver(driver, lines, backwards=False):
    """Feed request lines to the driver; return its answers in order."""
    args = [driver, "--prev"] if backwards else [driver]
    proc = subprocess.run(args, input="".join(lines), capture_output=True,
                          text=True, check=True)
    answers = proc.stdout.split("\n")[:len(lines)]
    if len(answers) != len(lines):
        sys.exit(f"cron_driver answered {len(answers)} of {len(lines)}")
    return answers


def ask_sked(driver, cases):
    for policy in ("once", "cadence"):
        lines = [f"{c.expr}\t{c.zone}\t{policy}\t{c.after}\t{c.count}\n"
                 for c in cases]
        for case, answer in zip(cases, run_driver(driver, lines)):
            case.results[policy] = answer


# ---- time helpers ----------------------------------------------------------

def epoch(text):
    return int(dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
               .timestamp())


def instants(result):
    """Return the instants of a result as epoch seconds (NONE dropped)."""
    if result is None or result.startswith(("ERROR", "REJECT")):
        return []
    return [epoch(w) for w in result.split() if w != "NONE"]


def is_list(result):
    return result is not None and not result.startswith(("ERROR", "REJECT"))


def offset(tz, t):
    return dt.datetime.fromtimestamp(t, tz).utcoffset()


def find_change(tz, lo, hi):
    """Return the first second in (lo, hi] with the offset of HI."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if offset(tz, mid) == offset(tz, lo):
            lo = mid
        else:
            hi = mid
    return hi


def offset_changes(tz, start, end):
    """Return (instant, old offset, new offset) for changes in (start, end]."""
    changes, t = [], start
    while t < end:
        step = min(end, t + 86400)
        if offset(tz, t) != offset(tz, step):
            at = find_change(tz, t, step)
            changes.append((at, offset(tz, t), offset(tz, at)))
            t = at
        else:
            t = step
    return changes


# ---- the DST window and the once policy -------------------------------------

def dst_window(case):
    """Tell whether the UTC offset changes between any two consecutive
    instants of the case: shortly before AFTER, AFTER, and every occurrence
    any side found."""
    if case.zone == "UTC":
        return False
    tz = ZoneInfo(case.zone)
    seen = {epoch(case.after), epoch(case.after) - DST_LOOKBACK}
    for name in ("once", "cadence", "croner", "croniter"):
        seen.update(instants(case.results.get(name)))
    points = sorted(seen)
    offsets = [offset(tz, t) for t in points]
    return any(a != b for a, b in zip(offsets, offsets[1:]))


def gap_has_match(rendered, wall_start, wall_end):
    """Tell whether some wall time in [wall_start, wall_end) matches, with
    croniter on naive datetimes: plain calendar arithmetic, no zone."""
    it = croniter(rendered, wall_start - dt.timedelta(seconds=1))
    try:
        return it.get_next(dt.datetime) < wall_end
    except Exception:  # CroniterBadDateError: no match for 50 years
        return False


def derive_once(case, croner_times, end):
    """Return SPEC 2.2's once occurrences in (after, end], from croner's
    cadence ones: drop second passes of repeated local times, and add the
    end of every gap that swallowed a matching local time."""
    tz = ZoneInfo(case.zone)
    after = epoch(case.after)
    once = {t for t in croner_times
            if t <= end and dt.datetime.fromtimestamp(t, tz).fold == 0}
    rendered = case.results["croniter:rendered"]
    for at, before, now in offset_changes(tz, after, end):
        if now <= before:
            continue
        wall = dt.datetime.fromtimestamp(at, dt.timezone.utc).replace(
            tzinfo=None)
        if gap_has_match(rendered, wall + before, wall + now):
            once.add(at)
    return sorted(t for t in once if after < t <= end)


def can_derive_once(case, croner_times):
    dialect = not (case.tags & {"w", "mixdow", "fullday"}) and not (
        "dom" in case.tags and case.tags & {"nth", "lastdow"})
    if not dialect or not croner_times:
        return False
    return croner_times[-1] - epoch(case.after) <= MAX_DERIVE_SPAN


# ---- classification --------------------------------------------------------

def croniter_dialect_category(case):
    if "w" in case.tags:
        return "croniter-w"
    if "mixdow" in case.tags:
        return "croniter-mixdow"
    if "fullday" in case.tags:
        return "croniter-fullday"
    if "dom" in case.tags and case.tags & {"nth", "lastdow"}:
        return "croniter-nth-or"
    return None


def disagreement_category(case):
    """Name the documented reason the oracles disagree, if there is one."""
    if case.zone in TZDATA_DIFFERS:
        return "tzdata-differs"
    if "sunrange" in case.tags:
        return "sunday-range"
    if "domhigh" in case.tags:
        return "croniter-short-month"
    return "oracles-disagree"


class Verdict:
    """What one valid case is compared with, and why."""

    def __init__(self):
        self.category = None
        self.cadence = None        # expected cadence result, or None
        self.once = None           # expected once result, or None
        self.once_window = None    # compare once only up to this instant
        self.source = ""


def classify(case):
    v = Verdict()
    croniter_res = case.results.get("croniter")
    croner_res = case.results.get("croner")
    dst = dst_window(case)
    category = croniter_dialect_category(case) or ("croniter-dst" if dst
                                                   else None)
    if not is_list(croner_res):
        if category or not is_list(croniter_res):
            v.category = "oracle-rejects"
            return v
        v.category, v.source = "oracle-rejects", "croniter"
        v.cadence = v.once = croniter_res
        return v
    if dst and "fixedform" in case.tags:
        v.category = "croner-fixedform"
        return v
    if "sunrange" in case.tags and (category or not is_list(croniter_res)):
        # croner alone would judge it, and croner reads SUN-SUN as the
        # whole week; SPEC 2.1 (and croniter) read it as Sunday.
        v.category = "croner-sunday-range"
        return v
    if category is None and not is_list(croniter_res):
        category = "oracle-rejects"
    if category is None and croniter_res != croner_res:
        category = disagreement_category(case)
        if category != "croniter-short-month":
            v.category = category
            return v
    v.category = category
    v.source = "croner+croniter" if category is None else "croner"
    v.cadence = croner_res
    if not dst or "fixed" in case.tags:
        v.once = croner_res
        return v
    times = instants(croner_res)
    if not can_derive_once(case, times):
        v.category = "once-not-derived"
        return v
    v.once_window = times[-1]
    return v


# ---- checks ----------------------------------------------------------------

class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = []
        self.categories = {}

    def check(self, ok, report):
        if ok:
            self.passed += 1
        else:
            self.failed.append(report)


def report(case, what, expected, got):
    return (f"[{what}] {case.id} expr='{case.expr}' zone={case.zone} "
            f"after={case.after} n={case.count} tags={','.join(sorted(case.tags))}"
            f"\n    expected: {expected}\n    sked:     {got}")


def check_once_window(tally, case, v):
    """Compare sked's once occurrences up to the derivable window."""
    sked = instants(case.results["once"])
    if not is_list(case.results["once"]):
        tally.check(False, report(case, "once", "occurrences",
                                  case.results["once"]))
        return
    end = min(v.once_window, sked[-1]) if len(sked) == case.count \
        else v.once_window
    expected = derive_once(case, instants(v.cadence), end)
    got = [t for t in sked if t <= end]
    tally.check(expected == got, report(
        case, "once (derived from croner)",
        " ".join(map(fmt, expected)), " ".join(map(fmt, got))))


def fmt(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def check_valid(tally, case):
    v = classify(case)
    if v.category:
        tally.categories[v.category] = tally.categories.get(v.category, 0) + 1
    if v.cadence is None:
        return False
    tally.check(case.results["cadence"] == v.cadence,
                report(case, f"cadence vs {v.source}", v.cadence,
                       case.results["cadence"]))
    if v.once is not None:
        tally.check(case.results["once"] == v.once,
                    report(case, f"once vs {v.source}", v.once,
                           case.results["once"]))
    elif v.once_window is not None:
        check_once_window(tally, case, v)
    return True


def check_invalid(tally, stats, case):
    _, kind, field = case.kind.split(":")
    rejected = [case.results.get(o, "").startswith("REJECT")
                for o in ("croniter", "croner")]
    entry = stats.setdefault(kind, [0, 0, 0])
    entry[0] += 1
    entry[1] += all(rejected)
    sked = case.results["once"].split(" ", 4)
    ok = sked[0] == "ERROR" and (field == "-" or sked[2] == field)
    entry[2] += sked[0] == "ERROR"
    what = "invalid: both oracles reject" if all(rejected) else \
        f"invalid ({kind}): SPEC 2.1 rejects"
    tally.check(ok, report(case, what, f"ERROR invalid_argument {field} ...",
                           case.results["once"]))


# ---- prev(next) consistency --------------------------------------------------

def prev_requests(cases):
    """Return (case, policy, line) for every case with N full occurrences."""
    out = []
    for case in cases:
        for policy in ("once", "cadence"):
            found = case.results[policy].split()
            if is_list(case.results[policy]) and "NONE" not in found \
                    and len(found) >= 2:
                line = f"{case.expr}\t{case.zone}\t{policy}\t{found[-1]}\t" \
                       f"{len(found)}\n"
                out.append((case, policy, line))
    return out


def check_prev(tally, driver, cases):
    """From the last of N occurrences, prev must walk back through the
    other N-1 and then land at or before AFTER."""
    requests = prev_requests(cases)
    answers = run_driver(driver, [r[2] for r in requests], backwards=True)
    for (case, policy, _), answer in zip(requests, answers):
        found = case.results[policy].split()
        back = answer.split()
        expected = list(reversed(found[:-1]))
        ok = back[:-1] == expected and (
            back[-1] == "NONE" or epoch(back[-1]) <= epoch(case.after))
        tally.check(ok, report(case, f"prev {policy}",
                               " ".join(expected) + " <= " + case.after,
                               answer))


# ---- summary ---------------------------------------------------------------

def print_summary(tally, cases, valid, compared, invalid_stats):
    print(f"cases: {len(cases)} ({len(valid)} valid, "
          f"{len(cases) - len(valid)} invalid)")
    print(f"valid cases compared: {compared} of {len(valid)} "
          f"({100.0 * compared / max(1, len(valid)):.1f}%)")
    print("categories (a case may be compared with one oracle only):")
    for name, reason in CATEGORIES.items():
        print(f"  {tally.categories.get(name, 0):6d}  {name}: {reason}")
    print("invalid expressions: kind, cases, both oracles reject, sked rejects")
    for kind, (n, both, sked) in sorted(invalid_stats.items()):
        note = INVALID_EXCEPTIONS.get(kind, "")
        print(f"  {kind:9s} {n:5d} {both:5d} {sked:5d}  {note}")
    for failure in tally.failed[:SHOW_MISMATCHES]:
        print("MISMATCH " + failure)
    if len(tally.failed) > SHOW_MISMATCHES:
        print(f"... and {len(tally.failed) - SHOW_MISMATCHES} more")


def print_disagreements(cases):
    shown = 0
    for case in cases:
        if case.kind == "valid" and classify(case).category == \
                "oracles-disagree" and shown < 3:
            shown += 1
            print(f"DISAGREE {case.id} '{case.expr}' {case.zone} {case.after}"
                  f"\n    croniter: {case.results['croniter']}"
                  f"\n    croner:   {case.results['croner']}")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    cases = read_cases(sys.argv[1])
    read_oracle(sys.argv[2], cases, "croniter")
    read_oracle(sys.argv[3], cases, "croner")
    ask_sked(sys.argv[4], cases)
    tally, invalid_stats, compared = Tally(), {}, 0
    valid = [c for c in cases if c.kind == "valid"]
    for case in valid:
        compared += check_valid(tally, case)
    for case in cases:
        if case.kind != "valid":
            check_invalid(tally, invalid_stats, case)
    check_prev(tally, sys.argv[4], valid)
    print_disagreements(cases)
    print_summary(tally, cases, valid, compared, invalid_stats)
    enough = compared >= MIN_COMPARED * len(valid)
    if not enough:
        print(f"FAIL: fewer than {MIN_COMPARED:.0%} of the valid cases "
              "were compared; an oracle may be broken")
    print(f"{tally.passed} passed, {len(tally.failed) + (not enough)} failed")
    return 0 if not tally.failed and enough else 1


if __name__ == "__main__":
    sys.exit(main())
