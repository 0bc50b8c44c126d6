#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The chaos checker (tests/chaos/check.py) finds what it is there to find.
# `make chaos` itself is too long for `make test`; this runs its checker on
# a small made-up history instead: ten seconds of two schedules (one
# `overlap: skip`), runs of three steps, one failed run and its
# compensations. The clean history passes every invariant. Then each
# fault a chaos run hunts for is planted alone — an occurrence lost or
# doubled, a run left running, two steps at once, a completion recorded
# wrong, an attempt run twice, compensations in the wrong order, a step
# outliving its server, a server exiting — and exactly its invariant must
# fail. And what is not a fault must pass: two steps at once while one's
# server was frozen, a completion cut off by its server's death.
#
# Env: SKED_SOURCE_DIR (else this script's repository). Ends with
# "N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
checker=${SKED_SOURCE_DIR:-$here/../..}/tests/chaos/check.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 - "$checker" "$tmp" <<'EOF'
import copy, os, subprocess, sys

checker, tmp = sys.argv[1:3]
US = 1000000
T0 = 1800000000
SECS = 10
SERVER, OTHER = 100, 200


def history():
    """A clean history: schedule a-skip fires every other second (the
    others are dropped as overlap), b-allow every second; each run runs
    prepare, work and finish, 0.3 s each, on server l1; b-allow's run of
    the fourth second fails at finish and compensates work, then prepare."""
    h = {"runs": [], "steps": [], "ledger": [], "missed": [],
         "schedules": [["a-skip", "skip"], ["b-allow", "allow"]],
         "faults": [[T0 * US - 5 * US, "start", "l1", "pid %d" % SERVER],
                    [T0 * US - 5 * US, "start", "l2", "pid %d" % OTHER]]}
    pid = 1000
    for i in range(SECS):
        t = (T0 + i) * US
        for sched in ("a-skip", "b-allow"):
            if sched == "a-skip" and i % 2:
                h["missed"].append([sched, "overlap", 1, t, t])
                continue
            rid = "sched-%s-%d" % (sched, i)
            failed = sched == "b-allow" and i == 3
            h["runs"].append([rid, sched, t, "failed" if failed else
                              "completed", "cron"])
            at = t + 10000
            done = []
            for step in ("prepare", "work", "finish"):
                rc = 1 if failed and step == "finish" else 0
                pid += 1
                at = run_step(h, rid, step, "step", at, rc, pid)
                if rc == 0:
                    done.append(step)
            if failed:
                for step in reversed(done):
                    pid += 1
                    at = run_step(h, rid, step, "comp", at, 0, pid)
    return h


def run_step(h, rid, step, kind, at, rc, pid, server=SERVER, attempt=1):
    end = at + 300000
    h["ledger"].append(["start", rid, step, kind, attempt, at, pid, server,
                        300])
    h["ledger"].append(["end", rid, step, kind, attempt, end, pid, server,
                        rc])
    h["steps"].append([rid, step, 1 if kind == "comp" else 0, attempt,
                       "completed" if rc == 0 else "failed",
                       "" if rc == 0 else "exit", at, end])
    return end + 1000


def write(h, d):
    os.makedirs(d)
    for name, sep in (("runs", "|"), ("steps", "|"), ("missed", "|"),
                      ("schedules", "|")):
        with open("%s/sqlite.%s" % (d, name), "w") as f:
            for r in h[name]:
                f.write(sep.join(str(x) for x in r) + "\n")
    with open(d + "/ledger-sqlite", "w") as f:
        for r in h["ledger"]:
            f.write("\t".join(str(x) for x in r) + "\n")
    with open(d + "/faults.log", "w") as f:
        for r in sorted(h["faults"]):
            f.write("\t".join(str(x) for x in r) + "\n")


def verdicts(h, name):
    d = "%s/%s" % (tmp, name)
    write(h, d)
    p = subprocess.run([sys.executable, checker, "--dir", d, "--from",
                        str(T0), "--to", str(T0 + SECS - 1), "--faults",
                        d + "/faults.log", "--lease", "5", "sqlite"],
                       capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if l[:4] in ("ok  ", "FAIL")]
    failed = {inv for l in lines if l.startswith("FAIL")
              for inv in INVARIANTS if l[12:].startswith(inv + ": ")}
    return p.returncode, failed, len(lines), p.stdout + p.stderr


def find(h, rid, step, kind="step", what="start"):
    for r in h["ledger"]:
        if r[0] == what and r[1] == rid and r[2] == step and r[3] == kind:
            return r
    raise KeyError((rid, step, kind, what))


def step_row(h, rid, step, kind=0):
    for r in h["steps"]:
        if r[0] == rid and r[1] == step and r[2] == kind:
            return r
    raise KeyError((rid, step))


# Each case: a name, a change to the clean history, and the one invariant
# it must break (None: none).
def lose_run(h):
    h["runs"] = [r for r in h["runs"] if r[0] != "sched-b-allow-5"]


def double_run(h):
    t = (T0 + 1) * US
    h["runs"].append(["sched-a-skip-1x", "a-skip", t, "completed", "cron"])


def miscount_drop(h):
    h["missed"][0][2] = 2


def leave_running(h):
    h["runs"][0][3] = "running"


def overlap(h):
    # a-skip's run of second 2 starts 0.4 s after the run of second 0,
    # which is still working.
    for r in h["ledger"]:
        if r[1] == "sched-a-skip-2":
            r[5] -= 1600000
    for r in h["steps"]:
        if r[0] == "sched-a-skip-2":
            r[6] -= 1600000
            r[7] -= 1600000


def overlap_frozen(h):
    # The same, but the earlier run's server was frozen meanwhile: the
    # time it spent frozen (and a while after) is not time it ran.
    overlap(h)
    h["faults"].append([T0 * US + 300000, "stop", "l1", "pid %d" % SERVER])
    h["faults"].append([T0 * US + 900000, "cont", "l1", "pid %d" % SERVER])
    for r in h["ledger"]:
        if r[1] == "sched-a-skip-2":
            r[7] = OTHER


def completion_lost(h):
    row = step_row(h, "sched-b-allow-6", "work")
    row[4], row[5] = "failed", "lease_expired"


def completion_cut(h):
    completion_lost(h)
    end = find(h, "sched-b-allow-6", "work", what="end")[5]
    h["faults"].append([end + 1000, "kill", "l1", "pid %d" % SERVER])
    # The attempt is closed when another server recovers the run.
    step_row(h, "sched-b-allow-6", "work")[7] = end + 5 * US
    h["faults"].append([end + 2000, "restart", "l1", "pid %d" % OTHER])


def recorded_twice(h):
    row = list(step_row(h, "sched-b-allow-7", "prepare"))
    row[3] = 2
    h["steps"].append(row)


def attempt_twice(h):
    s = list(find(h, "sched-b-allow-8", "finish"))
    e = list(find(h, "sched-b-allow-8", "finish", what="end"))
    s[6] = e[6] = 99999
    h["ledger"] += [s, e]


def record_of_another(h):
    # Attempt 1 ran twice, and only the second execution was recorded:
    # the first one's completion is lost, not recorded.
    attempt_twice(h)
    row = step_row(h, "sched-b-allow-8", "finish")
    row[6] += 5 * US
    row[7] += 5 * US
    for r in h["ledger"]:
        if r[1] == "sched-b-allow-8" and r[2] == "finish" and r[6] == 99999:
            r[5] += 5 * US


def start_lost(h):
    # The attempt's start was never written; its end was, with the end's
    # time for both.
    # (It ran for 2.3 s, more than the second the checker allows.)
    find(h, "sched-b-allow-5", "work")[5] -= 2 * US
    row = step_row(h, "sched-b-allow-5", "work")
    row[6] = row[7]


def comp_order(h):
    a = find(h, "sched-b-allow-3", "work", "comp")
    b = find(h, "sched-b-allow-3", "prepare", "comp")
    a[5], b[5] = b[5], a[5]


def comp_missing(h):
    h["ledger"] = [r for r in h["ledger"]
                   if not (r[1] == "sched-b-allow-3" and r[2] == "prepare"
                           and r[3] == "comp")]
    h["steps"].remove(step_row(h, "sched-b-allow-3", "prepare", 1))


def outlived(h):
    # The server dies 0.1 s into the step, which ends 2 s later; another
    # server closes the attempt when the lease has lapsed.
    start = find(h, "sched-b-allow-9", "work")[5]
    h["faults"].append([start + 100000, "kill", "l1", "pid %d" % SERVER])
    find(h, "sched-b-allow-9", "work", what="end")[5] = start + 2 * US
    row = step_row(h, "sched-b-allow-9", "work")
    row[4], row[5], row[7] = "failed", "lease_expired", start + 5 * US


def server_exit(h):
    h["faults"].append([T0 * US + 4 * US, "exit", "l2",
                        "pid %d exited by itself, status 4" % OTHER])


OCC = "every occurrence has one run or one traced drop"
INVARIANTS = [OCC, "no run left active",
              "no two steps of an overlap: skip schedule at once",
              "every completed step recorded once",
              "no attempt executed twice",
              "no step outlived its killed server",
              "compensations run in reverse order",
              "no server exited by itself"]
cases = [
    ("clean", lambda h: None, None),
    ("an occurrence with no run", lose_run, OCC),
    ("an occurrence with two runs", double_run, OCC),
    ("a drop whose count is wrong", miscount_drop, OCC),
    ("a run left running", leave_running, "no run left active"),
    ("two runs of a skip schedule at once", overlap,
     "no two steps of an overlap: skip schedule at once"),
    ("two at once, one frozen", overlap_frozen, None),
    ("a completion lost by a live server", completion_lost,
     "every completed step recorded once"),
    ("a completion cut off by a kill", completion_cut, None),
    ("a step recorded completed twice", recorded_twice,
     "every completed step recorded once"),
    ("an attempt run by two processes", attempt_twice,
     "no attempt executed twice"),
    ("a completion whose record is another execution's",
     record_of_another, {"every completed step recorded once",
                         "no attempt executed twice"}),
    ("a completion recorded from its end", start_lost,
     "every completed step recorded once"),
    ("compensations in the order of the steps", comp_order,
     "compensations run in reverse order"),
    ("a compensation missing", comp_missing,
     "compensations run in reverse order"),
    ("a step outliving its killed server", outlived,
     "no step outlived its killed server"),
    ("a server exiting by itself", server_exit,
     "no server exited by itself"),
]
passed = failed = 0
clean = history()
for i, (name, change, want) in enumerate(cases):
    h = copy.deepcopy(clean)
    change(h)
    rc, broken, n, out = verdicts(h, "case%d" % i)
    expect = want if isinstance(want, set) else {want} if want else set()
    if broken == expect and rc == (1 if want else 0) and \
            n == len(INVARIANTS):
        passed += 1
    else:
        failed += 1
        print("FAIL %s: broke %s (exit %d), want %s\n%s" %
              (name, sorted(broken) or "nothing", rc, want or "nothing",
               out))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
EOF
