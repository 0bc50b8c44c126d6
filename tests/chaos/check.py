# SPDX-License-Identifier: MIT
"""The invariants of a chaos run (tests/chaos/chaos.sh), checked from the
ledger the steps wrote themselves (tests/chaos/step.sh), the tables the
run dumped from each cluster's database, and the log of the faults.

    check.py --dir DIR --from T0 --to T1 --faults FILE --lease SECS CLUSTER...

For each CLUSTER (pg, sqlite), DIR holds ledger-CLUSTER and the dumps
CLUSTER.runs, .steps, .schedules and .missed ("a|b|c" rows). T0 and T1
are the first and last occurrence of every schedule (Unix seconds; the
schedules fire every second). One line per invariant and cluster,
"ok" or "FAIL", with its counts; under a broken one, a few examples,
each with the fault that came last before it. Exit status 1 when any
invariant is broken.

Words: an execution is one process of one attempt, from its ledger start
line to its end line; an execution with no end line (SIGKILL) ended when
its server was killed, or at the latest when its planned time was up.
Time a server and its steps spent frozen (SIGSTOP) is not time they ran,
nor is the third of a lease (and a second) after it woke: the time it
needs to learn that its leases lapsed and stop the steps it lost.
"""

import argparse
import collections
import re
import sys
import time

US = 1000000
REASONS = {"catchup_skip", "superseded", "catchup_max", "outside_window",
           "overlap"}
ACTIVE = {"pending", "running", "waiting"}
# The steps that have a compensation (the pipeline workflow's).
COMPENSATED = {"prepare", "work", "finish"}
EXAMPLES = 5


def hms(t):
    """An instant in µs as HH:MM:SS.s UTC, as the fault log prints it."""
    return time.strftime("%H:%M:%S", time.gmtime(t // US)) + \
        ".%d" % (t % US // 100000)


def rows(path, sep="|"):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [l.rstrip("\n").split(sep) for l in f if l.strip()]


class Faults:
    """The fault log: per cluster, when each fault happened; per server
    pid, when it was killed and when it was frozen."""

    def __init__(self, path):
        self.all = []
        self.kills = collections.defaultdict(list)
        self.frozen = collections.defaultdict(list)
        self.names = {}
        stops = {}
        for t, fault, target, detail in ((r + [""] * 4)[:4]
                                         for r in rows(path, "\t")):
            t = int(t)
            self.all.append((t, fault, target, detail))
            m = re.match(r"pid (\d+)", detail)
            if not m:
                continue
            p = int(m.group(1))
            if target[1:].isdigit():
                self.names[p] = target
            if fault in ("kill", "exit"):
                self.kills[p].append(t)
            elif fault == "stop":
                stops[p] = t
            elif fault == "cont" and p in stops:
                self.frozen[p].append((stops.pop(p), t))
        for p, t in stops.items():
            self.frozen[p].append((t, 1 << 62))

    def of(self, cluster):
        """The faults that touch CLUSTER, oldest first."""
        mine = {"pg": ("pg", "p"), "sqlite": ("sqlite", "l")}[cluster]
        return [f for f in self.all
                if f[2] == "all" or f[2] == mine[0] or
                (f[2][:1] == mine[1] and f[2][1:].isdigit())]

    def who(self, pid):
        """Name server PID as the fault log does: "p1 (pid 1234)"."""
        return "%s (pid %d)" % (self.names.get(pid, "server"), pid)

    @staticmethod
    def before(faults, t):
        """Describe the last fault at or before T, and how long before."""
        last = None
        for f in faults:
            if f[0] > t:
                break
            if f[1] not in ("start", "restart", "cont", "diskfree",
                            "settle", "end"):
                last = f
        if last is None:
            return "before any fault"
        return "%.1f s after %s %s %s at %s" % ((t - last[0]) / US, last[1],
                                                last[2], last[3],
                                                hms(last[0]))


class Cluster:
    def __init__(self, d, name):
        self.name = name
        self.runs = {}
        for r in rows("%s/%s.runs" % (d, name)):
            self.runs[r[0]] = {"schedule": r[1], "for": int(r[2] or 0),
                               "status": r[3], "trigger": r[4]}
        self.steps = collections.defaultdict(list)
        for r in rows("%s/%s.steps" % (d, name)):
            key = (r[0], r[1], "comp" if r[2] in ("1", "t") else "step")
            self.steps[key].append({"attempt": int(r[3]), "status": r[4],
                                    "code": r[5], "started": int(r[6]),
                                    "finished": int(r[7])})
        self.overlap = dict((r[0], r[1]) for r in
                            rows("%s/%s.schedules" % (d, name)))
        self.missed = collections.defaultdict(list)
        self.bad_reason = 0
        for s, reason, count, first, last in rows("%s/%s.missed" % (d, name)):
            if reason not in REASONS:
                self.bad_reason += 1
            self.missed[s].append((int(first), int(last), int(count),
                                   reason))
        self.execs = self.read_ledger("%s/ledger-%s" % (d, name))

    @staticmethod
    def read_ledger(path):
        """Executions: dicts with run, step, kind, attempt, start, end,
        rc (None without an end line), pid, server, planned_ms."""
        open_ = {}
        out = []
        for r in rows(path, "\t"):
            if len(r) != 9:
                print("ledger: a line with %d fields: %r" % (len(r), r),
                      file=sys.stderr)
                continue
            what, run, step, kind, attempt, t, p, server, extra = r
            key = (run, step, kind, int(attempt), int(p))
            if what == "start":
                e = {"run": run, "step": step, "kind": kind,
                     "attempt": int(attempt), "start": int(t), "end": None,
                     "rc": None, "pid": int(p), "server": int(server),
                     "planned_ms": int(extra)}
                open_[key] = e
                out.append(e)
            elif key in open_:
                open_[key]["end"] = int(t)
                open_[key]["rc"] = int(extra)
        return out


def report(ok, cluster, invariant, summary, examples=()):
    print("%-4s %-6s %s: %s" % ("ok" if ok else "FAIL", cluster, invariant,
                                summary))
    for e in list(examples)[:EXAMPLES]:
        print("       e.g. " + e)
    return ok


def check_occurrences(c, t0, t1, faults):
    """Every occurrence T0 <= t <= T1 of every schedule has exactly one run
    or lies in exactly one traced drop (SPEC 3.3, 11)."""
    runs = collections.Counter()
    outside = 0
    for r in c.runs.values():
        if r["schedule"] and r["trigger"] in ("cron", "catchup"):
            if t0 * US <= r["for"] <= t1 * US:
                runs[(r["schedule"], r["for"])] += 1
            else:
                outside += 1
    n = n_runs = n_missed = absent = doubled = bad_count = 0
    by_reason = collections.Counter()
    bad = []
    for s in sorted(c.overlap):
        for first, last, count, reason in c.missed[s]:
            if (last - first) // US + 1 != count:
                bad_count += 1
                bad.append("%s: a drop of %d (%s) spans %d s" %
                           (s, count, reason, (last - first) // US + 1))
        for t in range(t0 * US, t1 * US + 1, US):
            n += 1
            r = runs[(s, t)]
            m = [x[3] for x in c.missed[s] if x[0] <= t <= x[1]]
            n_runs += r
            n_missed += len(m)
            by_reason.update(m)
            if r + len(m) == 0:
                absent += 1
                bad.append("%s at %s absent, %s" %
                           (s, hms(t), Faults.before(faults, t)))
            elif r + len(m) > 1:
                doubled += 1
                bad.append("%s at %s: %d runs and %d drops, %s" %
                           (s, hms(t), r, len(m), Faults.before(faults, t)))
    broken = absent + doubled + bad_count + c.bad_reason + outside
    reasons = ", ".join("%s %d" % kv for kv in sorted(by_reason.items()))
    return report(broken == 0, c.name,
                  "every occurrence has one run or one traced drop",
                  "%d occurrences: %d runs, %d drops (%s); %d absent, "
                  "%d doubled, %d drops miscounted, %d unknown reasons, "
                  "%d runs outside the period" %
                  (n, n_runs, n_missed, reasons or "none", absent, doubled,
                   bad_count, c.bad_reason, outside), bad)


def check_active(c):
    left = sorted((r["status"], i) for i, r in c.runs.items()
                  if r["status"] in ACTIVE)
    counts = collections.Counter(s for s, _ in left)
    return report(not left, c.name, "no run left active",
                  "%d of %d runs active at the end (%s)" %
                  (len(left), len(c.runs),
                   ", ".join("%s %d" % kv for kv in sorted(counts.items()))
                   or "none"),
                  ["%s %s" % x for x in left])


def ran(e, faults, wake_us):
    """The segments of wall time execution E really ran: from its start to
    its end, less the time its server was frozen and the WAKE_US after it
    woke (a server learns that its leases lapsed while it was frozen at
    its next renewal, a third of the lease later, and only then can stop
    the steps of the runs it lost)."""
    end = e["end"]
    if end is None:
        kills = [t for t in faults.kills.get(e["server"], [])
                 if t >= e["start"]]
        end = min(kills) if kills else e["start"] + e["planned_ms"] * 1000
    segs = [(e["start"], end)]
    for a, b in faults.frozen.get(e["server"], []):
        segs = [piece for s, t in segs for piece in
                ((s, min(t, a)), (max(s, b + wake_us), t))
                if piece[0] < piece[1]]
    return segs


def check_overlap_skip(c, faults, cluster_faults, wake_us):
    """No two executions of an `overlap: skip` schedule ran at once."""
    skip = {s for s, o in c.overlap.items() if o == "skip"}
    by_sched = collections.defaultdict(list)
    n = 0
    for e in c.execs:
        r = c.runs.get(e["run"])
        if r and r["schedule"] in skip:
            n += 1
            for s, t in ran(e, faults, wake_us):
                by_sched[r["schedule"]].append((s, t, e))
    bad = []
    for sched, segs in sorted(by_sched.items()):
        segs.sort(key=lambda x: x[0])
        last_end, last = 0, None
        for s, t, e in segs:
            if last is not None and s < last_end and last is not e:
                bad.append("%s: %s %s attempt %d on %s and %s %s "
                           "attempt %d on %s ran at once for %.2f s "
                           "from %s, %s" %
                           (sched, last["run"], last["step"],
                            last["attempt"], faults.who(last["server"]),
                            e["run"], e["step"], e["attempt"],
                            faults.who(e["server"]),
                            (min(t, last_end) - s) / US, hms(s),
                            Faults.before(cluster_faults, s)))
            if t > last_end:
                last_end, last = t, e
    return report(not bad, c.name,
                  "no two steps of an overlap: skip schedule at once",
                  "%d executions of %d schedules, %d overlapping" %
                  (n, len(skip), len(bad)), bad)


def execution(e, faults):
    """Name execution E: "RUN STEP KIND attempt N on SERVER"."""
    return "%s %s %s attempt %d on %s" % (e["run"], e["step"], e["kind"],
                                          e["attempt"],
                                          faults.who(e["server"]))


def gone(faults, server, t0, t1):
    """Whether SERVER was killed, or frozen, at some time in [T0, T1]."""
    return (any(t0 <= t <= t1 for t in faults.kills.get(server, [])) or
            any(a <= t1 and t0 <= b for a, b in faults.frozen.get(server,
                                                                  [])))


def check_recorded(c, faults, cluster_faults):
    """Every execution that completed is recorded, as completed, once, by
    the record of its attempt, which started before it. An
    attempt whose server died or froze before it could record the end
    (lease_expired, or interrupted) is cut off and runs again: at least
    once, not a fault. But a live server keeps its runs (issue 14, item
    2): an attempt closed as lease_expired while its server lived is a
    completion lost."""
    done = [e for e in c.execs if e["rc"] == 0]
    completed_ok = set()
    cut = lost = wrong_start = 0
    bad = []
    for e in done:
        key = (e["run"], e["step"], e["kind"])
        rec = [s for s in c.steps.get(key, []) if s["attempt"] == e["attempt"]]
        late = rec and rec[0]["started"] - US > e["start"]
        if late and rec[0]["status"] == "completed" and \
                rec[0]["started"] <= e["end"] + US and \
                e["end"] <= rec[0]["finished"] + US:
            # Its end was recorded, but its start was not (it is the time
            # of the end, or of a retried write).
            completed_ok.add(key + (e["attempt"],))
            wrong_start += 1
            bad.append("%s ran from %s, but is recorded from %s, %s" %
                       (execution(e, faults), hms(e["start"]),
                        hms(rec[0]["started"]),
                        Faults.before(cluster_faults, e["start"])))
        elif late:
            # Its attempt was recorded later, for another execution: this
            # one never was.
            lost += 1
            bad.append("%s completed at %s, but its attempt was recorded "
                       "only from %s, %s" %
                       (execution(e, faults), hms(e["end"]),
                        hms(rec[0]["started"]),
                        Faults.before(cluster_faults, e["start"])))
        elif rec and rec[0]["status"] == "completed" and \
                e["end"] <= rec[0]["finished"] + US:
            completed_ok.add(key + (e["attempt"],))
        elif rec and rec[0]["code"] in ("lease_expired", "interrupted") and \
                gone(faults, e["server"], e["start"], rec[0]["finished"]):
            cut += 1
        else:
            lost += 1
            again = [x["server"] for x in c.execs
                     if (x["run"], x["step"], x["kind"]) == key and
                     x["start"] > e["start"]]
            bad.append("%s completed at %s, recorded %s, %s; %s" %
                       (execution(e, faults), hms(e["end"]),
                        "%s (%s)" % (rec[0]["status"], rec[0]["code"])
                        if rec else "nowhere",
                        Faults.before(cluster_faults, e["end"]),
                        "run again by " + ("the same server"
                                           if again[0] == e["server"] else
                                           faults.who(again[0]))
                        if again else "not run again"))
    twice = 0
    for key, recs in sorted(c.steps.items()):
        comp = [s for s in recs if s["status"] == "completed"]
        if len(comp) > 1:
            twice += 1
            bad.append("%s %s %s recorded completed %d times" %
                       (key + (len(comp),)))
        for s in comp:
            if key + (s["attempt"],) not in completed_ok:
                bad.append("%s %s %s attempt %d recorded completed, but no "
                           "execution of it completed, %s" %
                           (key + (s["attempt"],
                                   Faults.before(cluster_faults,
                                                 s["finished"]))))
    return report(not bad, c.name, "every completed step recorded once",
                  "%d executions completed: %d recorded completed, %d cut "
                  "off by their server's death or freeze and run again, "
                  "%d lost while their server lived, %d recorded with a "
                  "start later than theirs, %d steps recorded completed "
                  "twice, %d recorded completed with no execution that "
                  "completed" %
                  (len(done), len(completed_ok), cut, lost, wrong_start,
                   twice, len(bad) - twice - lost - wrong_start), bad)


def check_attempts(c, faults, cluster_faults):
    """Each attempt is executed by one process: an attempt that two
    processes ran means a step outlived its server, or a recovery reused
    the number of an attempt it did not close."""
    seen = collections.defaultdict(list)
    for e in c.execs:
        seen[(e["run"], e["step"], e["kind"], e["attempt"])].append(e)
    bad = ["%s %s %s attempt %d run by %d processes (on %s), %s" %
           (k + (len(v), ", ".join(faults.who(e["server"]) for e in v),
                 Faults.before(cluster_faults, v[1]["start"])))
           for k, v in sorted(seen.items()) if len(v) > 1]
    return report(not bad, c.name, "no attempt executed twice",
                  "%d attempts, %d executed more than once" %
                  (len(seen), len(bad)), bad)


def check_outlived(c, faults, cluster_faults):
    """No step goes on running after its server was killed: an execution
    that wrote its end more than a second after the SIGKILL of its server
    outlived it (issue 14, item 5)."""
    n = 0
    bad = []
    for e in c.execs:
        end = e["end"] if e["end"] is not None else 1 << 62
        kills = [t for t in faults.kills.get(e["server"], [])
                 if e["start"] <= t <= end]
        if not kills:
            continue
        n += 1
        if e["end"] is not None and e["end"] > kills[0] + US:
            bad.append("%s ended %.1f s after its server, %s" %
                       (execution(e, faults), (e["end"] - kills[0]) / US,
                        Faults.before(cluster_faults, kills[0])))
    return report(not bad, c.name, "no step outlived its killed server",
                  "%d executions running at a kill, %d went on" %
                  (n, len(bad)), bad)


def check_compensations(c, cluster_faults):
    """A run that failed or was cancelled compensates the steps it
    completed, the last completed first; a completed run compensates
    nothing (SPEC 4.3)."""
    comps = collections.defaultdict(dict)
    for e in c.execs:
        if e["kind"] == "comp":
            first = comps[e["run"]].get(e["step"])
            if first is None or e["start"] < first:
                comps[e["run"]][e["step"]] = e["start"]
    done_of = collections.defaultdict(list)
    for (run_id, step, kind), recs in c.steps.items():
        if kind == "step" and step in COMPENSATED:
            done_of[run_id] += [(s["finished"], step) for s in recs
                                if s["status"] == "completed"]
    n = 0
    bad = []
    for run_id, r in sorted(c.runs.items()):
        done = sorted(done_of.get(run_id, []))
        want = [step for _, step in reversed(done)]
        got = [step for step, _ in sorted(comps.get(run_id, {}).items(),
                                          key=lambda kv: kv[1])]
        if r["status"] in ("failed", "cancelled") and want:
            n += 1
            if got != want:
                t = min(comps[run_id].values()) if got else 0
                bad.append("%s (%s): compensated %s, want %s, %s" %
                           (run_id, r["status"], got or "nothing", want,
                            Faults.before(cluster_faults, t) if t else
                            "no compensation ran"))
        elif r["status"] == "completed" and got:
            bad.append("%s completed, yet compensated %s" % (run_id, got))
    return report(not bad, c.name, "compensations run in reverse order",
                  "%d runs to compensate, %d wrong" % (n, len(bad)), bad)


def check_servers(name, cluster_faults):
    exits = [f for f in cluster_faults if f[1] == "exit"]
    return report(not exits, name, "no server exited by itself",
                  "%d exits" % len(exits),
                  ["%s %s" % (f[2], f[3]) for f in exits])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--from", dest="t0", type=int, required=True)
    ap.add_argument("--to", dest="t1", type=int, required=True)
    ap.add_argument("--faults", required=True)
    ap.add_argument("--lease", type=float, required=True,
                    help="the servers' lease, in seconds")
    ap.add_argument("clusters", nargs="+")
    a = ap.parse_args()
    faults = Faults(a.faults)
    counts = collections.Counter(f[1] for f in faults.all)
    print("faults: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())
                                 if kv[0] not in ("start", "end", "settle")))
    ok = True
    for name in a.clusters:
        c = Cluster(a.dir, name)
        cf = faults.of(name)
        ok &= check_occurrences(c, a.t0, a.t1, cf)
        ok &= check_active(c)
        ok &= check_overlap_skip(c, faults, cf,
                                 int((a.lease / 3 + 1) * US))
        ok &= check_recorded(c, faults, cf)
        ok &= check_attempts(c, faults, cf)
        ok &= check_outlived(c, faults, cf)
        ok &= check_compensations(c, cf)
        ok &= check_servers(name, cf)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
