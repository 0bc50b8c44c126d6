#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The rules of sked's layers, checked on every #include of src/ and cmd/.

The layers, lowest first (docs/development.md, "Layout"):

    base -> time, tz, cron -> model -> store -> sched, exec -> engine
         -> http, mcp, cmd

A file may include headers of its own layer and of the layers below it,
never above. Layers on one step (time, tz and cron; sched and exec; http,
mcp and cmd) may include each other, with these exceptions, which are the
rules of issue 15:

- src/http/, src/mcp/ and cmd/ include no header of src/store/ or
  src/sched/: they reach the schedules through sked/engine.h;
- engine_int.h, workflow_int.h and workflow_file_int.h (the engine's
  inside) are included only inside src/engine/;
- src/exec/ and src/sched/ include no header of src/engine/;
- src/http/ and src/mcp/ call no function of the store, the scheduler or
  the engine's inside (sked__store_*, sked__loop_*, sked__policy_*,
  sked__simulate*, sked__engine_*), whatever the header that declared it:
  the engine's public functions do those calls, and tell the scheduler.

A public header (include/sked/) counts as the layer of what it declares:
error, version, clock and time (the types every layer uses) are base's;
tz and cron are their own; schedule, workflow and run are the model's; engine
and the umbrella sked.h are the engine's. src/base/sked.c, which defines
the umbrella's own two functions (sked_version, sked_free), may include
it.

A crossing still to be mended is listed in layers.allow, one per line,
"FILE: HEADER" (HEADER as the #include spells it) with a comment saying
why; an entry that no longer matches a crossing fails too, so the list
only shrinks.

Usage: layers.py [ROOT]       check the tree at ROOT (default: ..)
       layers.py --self-test  check that every rule catches a crossing
Exit status 0 when no crossing is found, 1 otherwise: each is printed as
FILE:LINE: the rule it breaks.
"""

import os
import re
import shutil
import sys
import tempfile

ORDER = [
    ("base",),
    ("time", "tz", "cron"),
    ("model",),
    ("store",),
    ("sched", "exec"),
    ("engine",),
    ("http", "mcp", "cmd"),
]
RANK = {name: i for i, step in enumerate(ORDER) for name in step}
PUBLIC = {
    "error.h": "base",
    "version.h": "base",
    "clock.h": "base",
    "time.h": "base",
    "tz.h": "tz",
    "cron.h": "cron",
    "schedule.h": "model",
    "workflow.h": "model",
    "run.h": "model",
    "engine.h": "engine",
    "sked.h": "engine",
}
# FILE: the one header above it that FILE may include, and why.
OWN = {"src/base/sked.c": "include/sked/sked.h"}  # defines its functions
ENGINE_INSIDE = {"engine_int.h", "workflow_int.h", "workflow_file_int.h"}
# The names src/http/ and src/mcp/ may not call, and the code they are in.
AROUND = re.compile(r"\b(sked__(?:store|loop|policy|engine)_\w+|sked__simulate\w*)\s*\(")
NO_CALLS = ("src/http/", "src/mcp/")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def layer_of(rel):
    """The layer of the file REL (a path from the root), or None."""
    parts = rel.split("/")
    if parts[0] == "cmd":
        return "cmd"
    if parts[0] == "src" and len(parts) > 2 and parts[1] in RANK:
        return parts[1]
    if parts[0] == "include" and len(parts) == 3 and parts[1] == "sked":
        name = parts[2][:-3] + ".h" if parts[2].endswith(".h.in") else parts[2]
        return PUBLIC.get(name)
    return None


def resolve(root, rel, spelled, quoted):
    """The path from ROOT of the header SPELLED included by REL, or None
    for a header outside the project (the system's, a library's)."""
    here = os.path.dirname(rel)
    bases = ([here] if quoted else []) + ["src", "include"]
    for base in bases:
        cand = os.path.normpath(os.path.join(base, spelled))
        if os.path.exists(os.path.join(root, cand)):
            return cand
        if os.path.exists(os.path.join(root, cand + ".in")):
            return cand + ".in"
    return None


def crossing(src, dst):
    """Why a file at SRC (a path from the root) may not include DST, or
    None when it may."""
    a, b = layer_of(src), layer_of(dst)
    if os.path.basename(dst) in ENGINE_INSIDE and not src.startswith(
        "src/engine/"
    ):
        return "the engine's inside (%s) is for src/engine/ alone" % (
            os.path.basename(dst)
        )
    if a is None or b is None or OWN.get(src) == dst:
        return None
    if a in ("http", "mcp", "cmd") and b in ("store", "sched"):
        return "%s reaches %s/ around the engine (use sked/engine.h)" % (a, b)
    if a in ("exec", "sched") and b == "engine" and dst.startswith("src/"):
        return "%s calls up into src/engine/" % a
    if RANK[b] > RANK[a]:
        return "%s includes %s, a layer above it" % (a, b)
    return None


def calls_around(rel, text):
    """Print each call of TEXT (the file REL) that goes around the engine;
    return how many. Comments and strings are blanked first, keeping the
    line breaks, so the line numbers stay."""
    code = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    bad = 0
    for n, line in enumerate(code.split("\n"), 1):
        for m in AROUND.finditer(line):
            print("%s:%d: %s(): calls around the engine (use sked/engine.h)"
                  % (rel, n, m.group(1)))
            bad += 1
    return bad


def sources(root):
    """Every C file of src/ and cmd/, as paths from ROOT, sorted."""
    out = []
    for top in ("src", "cmd"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def read_allow(path):
    """The allowed crossings of PATH as {(file, header): line number}."""
    allow = {}
    if not os.path.exists(path):
        return allow
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            file, sep, header = line.partition(":")
            if not sep or not header.strip():
                raise SystemExit("%s:%d: expected FILE: HEADER" % (path, n))
            allow[(file.strip(), header.strip())] = n
    return allow


def includes_across(root, rel, text, allow, used):
    """Print each #include of TEXT (the file REL) that crosses the layers
    and is not in ALLOW (adding those that are to USED); return how
    many."""
    bad = 0
    for n, line in enumerate(text.split("\n"), 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        dst = resolve(root, rel, m.group(2), m.group(1) == '"')
        why = dst and crossing(rel, dst)
        if not why:
            continue
        if (rel, m.group(2)) in allow:
            used.add((rel, m.group(2)))
            continue
        print('%s:%d: #include "%s": %s' % (rel, n, m.group(2), why))
        bad += 1
    return bad


def check(root, allow_path):
    """Print every crossing of the tree at ROOT not in ALLOW_PATH, and
    every entry of it that matches none; return how many."""
    allow = read_allow(allow_path)
    used = set()
    bad = 0
    for rel in sources(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        if rel.startswith(NO_CALLS):
            bad += calls_around(rel, text)
        bad += includes_across(root, rel, text, allow, used)
    for key, n in sorted(allow.items(), key=lambda kv: kv[1]):
        if key not in used:
            print(
                "%s:%d: %s: %s is no longer a crossing: delete this entry"
                % (os.path.relpath(allow_path, root), n, key[0], key[1])
            )
            bad += 1
    return bad


def self_test():
    """Build a small tree with one crossing of each rule (and lawful
    includes around them) and check that exactly those are reported."""
    tree = {
        "include/sked/engine.h": "",
        "include/sked/schedule.h": "",
        "src/base/a.h": "",
        "src/base/ok.c": '#include "base/a.h"\n#include <stdio.h>\n',
        "src/base/up.c": '#include "base/a.h"\n#include "tz/tz.h"\n',
        "src/base/pub.c": '#include "sked/schedule.h"\n',
        "src/tz/tz.h": '#include "base/a.h"\n',
        "src/cron/c.c": '#include "tz/tz.h"\n',
        "src/model/m.h": '#include "cron/c.h"\n#include "sked/schedule.h"\n',
        "src/model/up.c": '#include "store/s.h"\n',
        "src/cron/c.h": "",
        "src/store/s.h": '#include "model/m.h"\n',
        "src/sched/l.h": '#include "store/s.h"\n#include "exec/x.h"\n',
        "src/sched/up.c": '#include "engine/e.h"\n',
        "src/exec/x.h": '#include "sched/l.h"\n#include "sked/schedule.h"\n',
        "src/exec/pub.c": '#include "exec/x.h"\n#include "sked/engine.h"\n',
        "include/sked/sked.h": "",
        "include/sked/time.h": "",
        "src/base/sked.c": '#include "sked/sked.h"\n#include "sked/time.h"\n',
        "src/base/other.c": '#include "sked/sked.h"\n',
        "src/exec/up.c": '#include "engine/engine_int.h"\n',
        "src/engine/e.h": '#include "sched/l.h"\n',
        "src/engine/engine_int.h": '#include "store/s.h"\n',
        "src/engine/workflow_int.h": "",
        "src/engine/in.c": '#include "engine/engine_int.h"\n',
        "src/http/h.c": '#include "engine/e.h"\n#include "sked/engine.h"\n',
        "src/http/s.c": '\n#include "store/s.h"\n',
        "src/http/call.c": '/* sked__loop_changed(x) */\nint f(void)\n{\n'
        '    g("sked__store_x(");\n    return sked__http_x(1) +\n'
        '        sked__loop_changed (l);\n}\n',
        "src/mcp/m.c": '#include "sched/l.h"\n',
        "cmd/sked/cli.h": '#include "http/h.h"\n',
        "src/http/h.h": "",
        "cmd/sked/main.c": '#include "cli.h"\n#  include "engine/workflow_int.h"\n',
        "cmd/sked/allowed.c": '#include "store/s.h"\n',
        "cmd/sked/stale.c": "",
    }
    want = {
        "src/base/up.c:2",
        "src/base/pub.c:1",
        "src/model/up.c:1",
        "src/sched/up.c:1",
        "src/exec/up.c:1",
        "src/exec/pub.c:2",
        "src/base/other.c:1",
        "src/http/s.c:2",
        "src/http/call.c:6",
        "src/mcp/m.c:1",
        "cmd/sked/main.c:2",
        "tests/lint/layers.allow:2",
    }
    root = tempfile.mkdtemp(prefix="sked-layers-")
    try:
        for rel, text in tree.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        allow = os.path.join(root, "tests/lint/layers.allow")
        os.makedirs(os.path.dirname(allow))
        with open(allow, "w", encoding="utf-8") as f:
            f.write("cmd/sked/allowed.c: store/s.h  # allowed\n")
            f.write("cmd/sked/stale.c: store/s.h  # stale\n")
        import contextlib
        import io

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            bad = check(root, allow)
        got = {":".join(line.split(":")[:2]) for line in out.getvalue().splitlines()}
        if got != want or bad != len(want):
            print("layers self-test: reported:\n" + out.getvalue())
            print("missed: %s" % sorted(want - got))
            print("wrongly reported: %s" % sorted(got - want))
            return 1
        print("layers self-test: the %d crossings were each reported" % len(want))
        return 0
    finally:
        shutil.rmtree(root)


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    root = os.path.abspath(root)
    bad = check(root, os.path.join(root, "tests/lint/layers.allow"))
    if bad:
        print("layers: %d crossing(s) of the layers (tests/lint/layers.py)" % bad)
        return 1
    print("layers: every include of src/ and cmd/ goes downward")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
