#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sked server under systemd's notification protocol, the test playing
systemd: it binds the $NOTIFY_SOCKET datagram socket, starts a real server
with it and WATCHDOG_USEC, and reads what the server says.

- READY=1 (with MAINPID) comes once the API answers: /healthz answers at
  once after it; a STATUS= line says the server is serving.
- WATCHDOG=1 comes at half of WATCHDOG_USEC, while the server idles and
  while it runs steps; never when WATCHDOG_PID names another process.
- SIGHUP: RELOADING=1 with MONOTONIC_USEC, then READY=1 again.
- SIGTERM: STOPPING=1, then exit 0.
- The variables reach no step (their environment lacks NOTIFY_SOCKET).
- An abstract socket ("@name") works as a path does.
- Without NOTIFY_SOCKET, nothing is sent and the server runs as ever.
- The journal: with $JOURNAL_STREAM naming the server's stderr, each log
  line is one native-protocol entry (PRIORITY, SYSLOG_IDENTIFIER=sked,
  MESSAGE, SKED_KEY per pair) on the journal's socket, and stderr stays
  empty; with $JOURNAL_STREAM naming another file, or with no journal
  listening, the lines go to stderr as ever.

Env: SKED_BIN. Ends with "N passed, M failed"."""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

BIN = os.environ["SKED_BIN"]
passed = failed = 0


def check(name, ok, why=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {why}")


class Manager:
    """systemd's side of the socket: every datagram with its arrival."""

    def __init__(self, address, abstract=False):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("\0" + address if abstract else address)
        self.name = "@" + address if abstract else address
        self.got = []  # (monotonic seconds, message)

    def read(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.sock.settimeout(max(0.01, end - time.monotonic()))
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                continue
            self.got.append((time.monotonic(), data.decode()))

    def until(self, pred, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if any(pred(m) for _, m in self.got):
                return True
            self.read(0.05)
        return any(pred(m) for _, m in self.got)

    def fields(self, msg):
        return dict(line.split("=", 1) for line in msg.split("\n") if "=" in line)


def start(tmp, name, env_extra, workflows=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
    env.update(env_extra)
    args = [BIN, "server", "--db", f"sqlite:{tmp}/{name}.db",
            "--listen", "127.0.0.1:0", "--tick", "1s"]
    if workflows:
        args += ["--workflows", workflows]
    log = open(f"{tmp}/{name}.log", "w")
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=log)


def url_of(tmp, name):
    with open(f"{tmp}/{name}.log") as f:
        for line in f:
            if 'msg="http listening"' in line:
                return line.split("url=")[1].split()[0]
    return None


def parse_entry(data):
    """The fields of one native-protocol datagram (both forms)."""
    fields, i = {}, 0
    while i < len(data):
        nl = data.index(b"\n", i)
        line = data[i:nl]
        if b"=" in line:
            k, v = line.split(b"=", 1)
            i = nl + 1
        else:
            k = line
            n = int.from_bytes(data[nl + 1:nl + 9], "little")
            v = data[nl + 9:nl + 9 + n]
            if data[nl + 9 + n:nl + 10 + n] != b"\n":
                raise ValueError("a binary field without its newline")
            i = nl + 10 + n
        fields[k.decode()] = v.decode()
    return fields


def journal_server(tmp, name, journal_sock, stream_of_other=False):
    """A server whose stderr is a file that JOURNAL_STREAM names (or
    names another file)."""
    err = open(f"{tmp}/{name}.err", "w")
    st = os.fstat(err.fileno()) if not stream_of_other else os.stat(f"{tmp}/wf.yaml")
    env = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
    env.update({"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}",
                "SKED_JOURNAL_SOCKET": journal_sock})
    args = [BIN, "server", "--db", f"sqlite:{tmp}/{name}.db", "--listen",
            "127.0.0.1:0", "--workers", "0"]
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=err)


def journal_checks(tmp):
    path = f"{tmp}/journal.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.2)
    p = journal_server(tmp, "j", path)
    entries, end = [], time.monotonic() + 20
    while time.monotonic() < end and not any(
            e.get("MESSAGE", "").startswith("server started") for e in entries):
        try:
            entries.append(parse_entry(sock.recv(65536)))
        except socket.timeout:
            pass
        except ValueError as e:
            check("entries in the native protocol", False, str(e))
            break
    started = next((e for e in entries if e.get("MESSAGE", "").startswith("server started")), None)
    check("the journal gets the server's entries", started is not None, f"{entries[:3]}")
    if started:
        check("PRIORITY=6 for info", started.get("PRIORITY") == "6", f"{started}")
        check("SYSLOG_IDENTIFIER=sked", started.get("SYSLOG_IDENTIFIER") == "sked", f"{started}")
        check("a pair as a field: SKED_PID", started.get("SKED_PID") == str(p.pid), f"{started}")
        check("MESSAGE holds the pairs too", f"pid={p.pid}" in started.get("MESSAGE", ""), f"{started}")
    listening = next((e for e in entries if e.get("MESSAGE", "").startswith("http listening")), {})
    check("SKED_URL of http listening", listening.get("SKED_URL", "").startswith("http://127.0.0.1:"),
          f"{listening}")
    p.send_signal(signal.SIGTERM)
    check("exits 0 (journal)", p.wait(15) == 0)
    check("nothing on stderr while the journal takes the lines",
          open(f"{tmp}/j.err").read() == "", open(f"{tmp}/j.err").read()[:300])

    # JOURNAL_STREAM of another file: stderr as ever.
    p = journal_server(tmp, "k", path, stream_of_other=True)
    time.sleep(1.5)
    p.send_signal(signal.SIGTERM)
    p.wait(15)
    check("another stream: the lines go to stderr",
          'msg="server started"' in open(f"{tmp}/k.err").read(), open(f"{tmp}/k.err").read()[:300])
    sock.close()

    # No journal listening: the lines go to stderr.
    os.unlink(path)
    p = journal_server(tmp, "l", path)
    time.sleep(1.5)
    p.send_signal(signal.SIGTERM)
    p.wait(15)
    check("no journal: the lines go to stderr",
          'msg="server started"' in open(f"{tmp}/l.err").read(), open(f"{tmp}/l.err").read()[:300])


def main():
    tmp = tempfile.mkdtemp()
    env_out = f"{tmp}/step-env.txt"
    wf = f"{tmp}/wf.yaml"
    with open(wf, "w") as f:
        f.write(f"""workflows:
  envdump:
    steps:
      - name: dump
        sh: 'env > {env_out}.tmp; mv {env_out}.tmp {env_out}; sleep 1'
    schedules:
      - cron: "* * * * * *"
        overlap: skip
""")

    # ---- a path socket, a watchdog of 1 s ------------------------------------
    m = Manager(f"{tmp}/notify.sock")
    p = start(tmp, "a", {"NOTIFY_SOCKET": m.name, "WATCHDOG_USEC": "1000000"}, wf)
    ready = m.until(lambda s: "READY=1" in s.split("\n"), 20)
    check("READY=1", ready, f"got {m.got}")
    url = url_of(tmp, "a")
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=2) as r:
            code = r.status
    except Exception as e:  # noqa: BLE001: any failure is the finding
        code = str(e)
    check("the API answers once READY=1 is sent", code == 200, f"{code}")
    first = next((msg for _, msg in m.got if "READY=1" in msg.split("\n")), "")
    check("READY=1 names MAINPID", m.fields(first).get("MAINPID") == str(p.pid), first)
    check("a STATUS= line says it serves",
          m.until(lambda s: m.fields(s).get("STATUS", "").startswith("serving"), 5),
          f"{m.got}")
    t0 = time.monotonic()
    m.read(3.0)
    pings = [t for t, s in m.got if s == "WATCHDOG=1" and t >= t0]
    # Half of 1 s: about 6 in 3 s, while steps run every second.
    check("WATCHDOG=1 every half interval (steps running)", 5 <= len(pings) <= 8,
          f"{len(pings)} pings in 3 s")
    gaps = [b - a for a, b in zip(pings, pings[1:])]
    check("no watchdog gap over the interval", gaps and max(gaps) < 0.9, f"{gaps}")
    for _ in range(50):
        if os.path.exists(env_out):
            break
        time.sleep(0.1)
    try:
        step_env = open(env_out).read()
    except OSError as e:
        step_env = f"(none: {e})"
    check("a step ran", "SKED_RUN_ID" in step_env or "SKED_" in step_env, step_env[:200])
    check("no NOTIFY_SOCKET or WATCHDOG_ in a step's environment",
          "NOTIFY_SOCKET" not in step_env and "WATCHDOG_" not in step_env, step_env[:400])

    n = len(m.got)
    p.send_signal(signal.SIGHUP)
    check("RELOADING=1 on SIGHUP",
          m.until(lambda s: "RELOADING=1" in s.split("\n"), 10), f"{m.got[n:]}")
    rel = next((s for _, s in m.got[n:] if "RELOADING=1" in s.split("\n")), "")
    mono = m.fields(rel).get("MONOTONIC_USEC", "")
    now_us = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    check("RELOADING=1 carries MONOTONIC_USEC of now",
          mono.isdigit() and abs(int(mono) - now_us) < 10_000_000, f"{rel!r} vs {now_us}")
    again = lambda: any("READY=1" in s.split("\n") for _, s in m.got[n:])
    end = time.monotonic() + 10
    while not again() and time.monotonic() < end:
        m.read(0.05)
    check("READY=1 after the reload", again(), f"{m.got[n:]}")

    n = len(m.got)
    p.send_signal(signal.SIGTERM)
    check("STOPPING=1 on SIGTERM",
          m.until(lambda s: "STOPPING=1" in s.split("\n"), 10), f"{m.got[n:]}")
    try:
        rc = p.wait(15)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "timeout"
    check("exits 0", rc == 0, f"{rc}")

    # ---- WATCHDOG_PID of another process: not our watchdog ----------------------
    m2 = Manager(f"{tmp}/notify2.sock")
    p = start(tmp, "b", {"NOTIFY_SOCKET": m2.name, "WATCHDOG_USEC": "200000",
                         "WATCHDOG_PID": "1"})
    check("READY=1 (another's watchdog)", m2.until(lambda s: "READY=1" in s.split("\n"), 20), f"{m2.got}")
    m2.read(1.0)
    check("no WATCHDOG=1 for another process's watchdog",
          not any(s == "WATCHDOG=1" for _, s in m2.got), f"{m2.got}")
    p.send_signal(signal.SIGTERM)
    p.wait(15)

    # ---- an abstract socket ----------------------------------------------------------
    name = f"sked-test-{os.getpid()}"
    m3 = Manager(name, abstract=True)
    p = start(tmp, "c", {"NOTIFY_SOCKET": m3.name})
    check("READY=1 on an abstract socket", m3.until(lambda s: "READY=1" in s.split("\n"), 20), f"{m3.got}")
    m3.read(1.0)
    check("no watchdog without WATCHDOG_USEC", not any(s == "WATCHDOG=1" for _, s in m3.got), f"{m3.got}")
    p.send_signal(signal.SIGTERM)
    check("exits 0 (abstract)", p.wait(15) == 0)

    # ---- no socket: runs as ever ------------------------------------------------------
    p = start(tmp, "d", {})
    ok = False
    for _ in range(200):
        if url_of(tmp, "d"):
            ok = True
            break
        time.sleep(0.1)
    check("without NOTIFY_SOCKET it serves", ok, open(f"{tmp}/d.log").read()[-500:])
    p.send_signal(signal.SIGTERM)
    check("exits 0 (no socket)", p.wait(15) == 0)

    journal_checks(tmp)
    subprocess.run(["rm", "-rf", tmp], check=False)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
