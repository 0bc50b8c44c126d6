#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# "sked mcp" over stdio (SPEC 8, docs/mcp.md): a real process on a real
# SQLite file, driven over its pipes by a small client.
#
# 1. initialize with each protocol version (2025-11-25, 2025-06-18,
#    2025-03-26, 2024-11-05) gets that version back, and an unknown one
#    the latest; sked's name and version, the capabilities; before
#    initialize only ping is served (-32600).
# 2. Bad input straight on stdin: malformed JSON (-32700), a batch
#    (-32600), a request without an id (a notification: no answer, and
#    nothing done), an unknown method (-32601), wrong params (-32602), a
#    2 MiB line (-32600), invalid UTF-8 (-32700), a wrong jsonrpc or id
#    (-32600), blank lines (ignored) — each answered as it should be,
#    the session answering a ping after each, and the database the same
#    (a dump before and after).
# 3. A subscription: resources/subscribe to a schedule, then pausing it
#    from another process sends notifications/resources/updated and,
#    after logging/setLevel, notifications/message with the event.
# 4. stdout holds JSON-RPC messages only, one a line; the end of stdin
#    ends the process with 0.
# 5. --server mode through a real "sked server" (with a token) answers
#    as --db mode does; a wrong token is a tool error, not a crash.
# Also: a last line without its newline, --db with --server (2), a
# database that cannot be opened (1, said on stderr), --help.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"
unset SKED_DB SKED_SERVER SKED_TOKEN

version=$("$bin" --version)
version=${version#sked }

cat >"$tmp/client.py" <<'EOF'
import json, os, select, sqlite3, subprocess, sys, time

bin, version, part = sys.argv[1], sys.argv[2], sys.argv[3]
args = sys.argv[4:]
passed = failed = 0
LATEST = "2025-11-25"
VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]


def check(name, ok, why=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why)[:2000])


class Mcp:
    """A "sked mcp" process and its pipes."""

    def __init__(self, argv, env=None):
        self.err = open(os.environ["MCP_ERR"], "ab")
        self.p = subprocess.Popen([bin, "mcp"] + argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err,
                                  env=env)
        self.buf = b""
        self.lines = []   # every line of stdout
        self.notes = []   # notifications received
        self.next_id = 100

    def send(self, raw):
        self.p.stdin.write(raw + b"\n")
        self.p.stdin.flush()

    def request(self, method, params=None, id=None):
        if id is None:
            self.next_id += 1
            id = self.next_id
        m = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            m["params"] = params
        self.send(json.dumps(m).encode())
        return id

    def line(self, timeout):
        end = time.time() + timeout
        while b"\n" not in self.buf:
            left = end - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                return None
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        l, self.buf = self.buf.split(b"\n", 1)
        self.lines.append(l)
        return json.loads(l)

    def answer(self, id, timeout=10):
        """The next answer, which must be ID's; notifications are kept."""
        while True:
            m = self.line(timeout)
            if m is None:
                return None
            if "method" in m and "id" not in m:
                self.notes.append(m)
                continue
            if m.get("id") != id:
                return {"unexpected": m}
            return m

    def call(self, method, params=None):
        return self.answer(self.request(method, params))

    def initialize(self, v=LATEST):
        a = self.call("initialize", {"protocolVersion": v, "capabilities": {},
                                     "clientInfo": {"name": "t", "version": "1"}})
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        return a

    def note(self, method, pred, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            for n in self.notes:
                if n.get("method") == method and pred(n.get("params", {})):
                    return n
            m = self.line(end - time.time())
            if m is not None:
                self.notes.append(m)
        return None

    def close(self):
        self.p.stdin.close()
        try:
            rc = self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = "still running 10 s after the end of stdin"
        rest = self.buf + self.p.stdout.read()
        self.lines += [l for l in rest.split(b"\n") if l]
        self.err.close()
        return rc


def only_jsonrpc(name, lines):
    """Every line of stdout is a JSON-RPC 2.0 message."""
    bad = []
    for l in lines:
        try:
            m = json.loads(l)
            ok = m.get("jsonrpc") == "2.0" and (
                ("id" in m and (("result" in m) != ("error" in m)))
                or ("method" in m and "id" not in m))
        except ValueError:
            ok = False
        if not ok:
            bad.append(l[:200])
    check(name, not bad and lines, "lines that are not JSON-RPC: %r" % bad)


def code(a):
    return (a or {}).get("error", {}).get("code")


def result(a):
    return (a or {}).get("result")


def dump(path):
    c = sqlite3.connect(path)
    d = "\n".join(c.iterdump())
    c.close()
    return d


def versions(db):
    caps = {"tools": {"listChanged": False},
            "resources": {"subscribe": True, "listChanged": True},
            "prompts": {"listChanged": False}, "logging": {}}
    for v in VERSIONS + ["1999-01-01"]:
        m = Mcp(["--db", db])
        if v == LATEST:
            a = m.call("tools/list")
            check("before.tools", code(a) == -32600, a)
            check("before.ping", result(m.call("ping")) == {}, "no pong")
        r = result(m.initialize(v)) or {}
        want = v if v in VERSIONS else LATEST
        check("version." + v, r.get("protocolVersion") == want, r)
        info = r.get("serverInfo", {})
        check("version.info." + v, info.get("name") == "sked" and
              info.get("version") == version, info)
        check("version.caps." + v, r.get("capabilities") == caps, r)
        check("version.instructions." + v,
              len(r.get("instructions", "")) > 20, r)
        a = m.call("initialize", {"protocolVersion": v})
        check("version.again." + v, code(a) == -32600, a)
        check("version.ping." + v, result(m.call("ping")) == {}, "no pong")
        rc = m.close()
        check("version.exit." + v, rc == 0, rc)
        only_jsonrpc("version.stdout." + v, m.lines)


BIG = b"x" * (2 << 20)
DELETE = b'"method":"tools/call","params":{"name":"delete_schedule",' \
    b'"arguments":{"name":"s1"'
BAD = [
    ("malformed", b'{"jsonrpc":"2.0","id":10,"method":', -32700, None),
    ("batch", b'[{"jsonrpc":"2.0","id":11,"method":"ping"},'
     b'{"jsonrpc":"2.0","id":12,' + DELETE + b'}}}]', -32600, None),
    ("no_id", b'{"jsonrpc":"2.0",' + DELETE + b'}}}', None, None),
    ("unknown_method", b'{"jsonrpc":"2.0","id":13,"method":"schedules/drop"}',
     -32601, 13),
    ("params_array", b'{"jsonrpc":"2.0","id":14,"method":"tools/call",'
     b'"params":["delete_schedule"]}', -32602, 14),
    ("params_no_name", b'{"jsonrpc":"2.0","id":15,"method":"tools/call",'
     b'"params":{"arguments":{"name":"s1"}}}', -32602, 15),
    ("params_no_tool", b'{"jsonrpc":"2.0","id":16,"method":"tools/call",'
     b'"params":{"name":"drop_everything"}}', -32602, 16),
    ("params_level", b'{"jsonrpc":"2.0","id":17,"method":"logging/setLevel",'
     b'"params":{"level":"loud"}}', -32602, 17),
    ("params_uri", b'{"jsonrpc":"2.0","id":18,"method":"resources/read",'
     b'"params":{}}', -32602, 18),
    ("params_prompt", b'{"jsonrpc":"2.0","id":"p","method":"prompts/get",'
     b'"params":{"name":"no_such_prompt"}}', -32602, "p"),
    ("2mib", b'{"jsonrpc":"2.0","id":19,' + DELETE + b',"pad":"' + BIG +
     b'"}}}', -32600, None),
    ("utf8", b'{"jsonrpc":"2.0","id":20,' + DELETE + b'\xff\xfe"}}}',
     -32700, None),
    ("jsonrpc_1", b'{"jsonrpc":"1.0","id":21,"method":"ping"}', -32600, 21),
    ("id_null", b'{"jsonrpc":"2.0","id":null,' + DELETE + b'}}}',
     -32600, None),
    ("id_real", b'{"jsonrpc":"2.0","id":2.5,"method":"ping"}', -32600, None),
    ("not_object", b'"ping"', -32600, None),
    ("blank", b"", None, None),
    ("spaces", b"  \t ", None, None),
    ("cancel_unknown", b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
     b'"params":{"requestId":999}}', None, None),
]


def bad_input(db):
    path = db[len("sqlite:"):]
    before = dump(path)
    m = Mcp(["--db", db])
    check("bad.init", result(m.initialize()) is not None, "no initialize")
    for name, raw, want, id in BAD:
        m.send(raw)
        if want is not None:
            a = m.line(20)
            check("bad." + name, code(a) == want and a.get("id") == id and
                  isinstance(a["error"].get("message"), str),
                  "want %s id %r, got %r" % (want, id, a))
        # The session still answers, and nothing came for a notification.
        pid = m.request("ping")
        a = m.answer(pid)
        check("bad.after." + name, result(a) == {}, a)
    a = m.call("resources/subscribe", {"uri": "sked://schedules/nope"})
    check("bad.subscribe_missing", code(a) == -32002, a)
    check("bad.db_unchanged", dump(path) == before, "the database changed")

    # A subscription: an event of s1 from another process reaches it.
    a = m.call("resources/subscribe", {"uri": "sked://schedules/s1"})
    check("sub.subscribe", result(a) == {}, a)
    check("sub.level", result(m.call("logging/setLevel",
                                      {"level": "info"})) == {}, "setLevel")
    subprocess.run([bin, "schedule", "pause", "s1", "--db", db], check=True,
                   stdout=subprocess.DEVNULL)
    n = m.note("notifications/resources/updated",
               lambda p: p.get("uri") == "sked://schedules/s1")
    check("sub.updated", n is not None, m.notes)
    n = m.note("notifications/message",
               lambda p: p.get("logger") == "sked" and
               p.get("level") == "info" and
               p.get("data", {}).get("type") == "schedule.paused")
    check("sub.message", n is not None, m.notes)
    rc = m.close()
    check("bad.exit", rc == 0, rc)
    only_jsonrpc("bad.stdout", m.lines)


SAME = [
    ("tools/list", None),
    ("resources/templates/list", None),
    ("prompts/list", None),
    ("tools/call", {"name": "list_schedules", "arguments": {}}),
    ("tools/call", {"name": "get_schedule", "arguments": {"name": "nope"}}),
    ("tools/call", {"name": "drop_everything"}),
    ("resources/read", {"uri": "sked://schedules/nope"}),
]


def modes(db, url, token):
    answers = []
    for argv in (["--db", db], ["--server", url]):
        env = dict(os.environ, SKED_TOKEN=token)
        m = Mcp(argv, env)
        got = [result(m.initialize())]
        for method, params in SAME:
            a = m.call(method, params)
            got.append(a.get("result", a.get("error")) if a else None)
        answers.append(got)
        check("modes.exit." + argv[0], m.close() == 0, "exit")
        only_jsonrpc("modes.stdout." + argv[0], m.lines)
    for i, (d, s) in enumerate(zip(*answers)):
        check("modes.same.%d" % i, d == s and d is not None,
              "--db: %r\n--server: %r" % (d, s))
    m = Mcp(["--server", url], dict(os.environ, SKED_TOKEN="wrong"))
    m.initialize()
    a = m.call("tools/call", {"name": "list_schedules", "arguments": {}})
    check("modes.wrong_token", (result(a) or {}).get("isError") is True, a)
    check("modes.wrong_token.exit", m.close() == 0, "exit")


if part == "versions":
    versions(*args)
elif part == "bad":
    bad_input(*args)
else:
    modes(*args)
print("counts %d %d" % (passed, failed))
EOF

# run PART ARGS...: run the client; add its counts to ours.
run() {
    local out
    out=$(MCP_ERR=$tmp/mcp.err "$py" "$tmp/client.py" "$bin" "$version" "$@" 2>&1)
    printf '%s\n' "$out" | grep -v '^counts ' | head -c 20000
    set -- $(printf '%s\n' "$out" | sed -n 's/^counts //p')
    if [ $# -ne 2 ]; then
        fail client "the client ended early"
        return
    fi
    passed=$((passed + $1))
    failed=$((failed + $2))
}

db=sqlite:$tmp/mcp.db
"$bin" schedule create w "0 9 * * *" --name s1 --timezone Europe/Paris \
    --db "$db" >/dev/null 2>&1 || fail setup.create "cannot create s1"

# ---- 1. versions, 2-4. bad input, a subscription, stdout --------------------
run versions "$db"
run bad "$db"

# A last line without its newline is read; the options are checked.
out=$(printf '{"jsonrpc":"2.0","id":1,"method":"ping"}' |
    "$bin" mcp --db "$db" 2>"$tmp/e")
check last_line.out "$out" '{"jsonrpc":"2.0","id":1,"result":{}}'
"$bin" mcp --db "$db" --server http://127.0.0.1:1 </dev/null >"$tmp/o" 2>"$tmp/e"
check both.rc "$?" 2
check both.stdout "$(cat "$tmp/o")" ""
check both.msg "$(cat "$tmp/e")" \
    "sked: give --db or --server, not both (see 'sked mcp --help')"
"$bin" mcp --db "postgres://127.0.0.1:1/none?connect_timeout=2" </dev/null \
    >"$tmp/o" 2>"$tmp/e"
check bad_db.rc "$?" 1
check bad_db.stdout "$(cat "$tmp/o")" ""
grep -q '^sked: cannot open the database ' "$tmp/e" && pass ||
    fail bad_db.msg "$(cat "$tmp/e")"
"$bin" mcp --help >"$tmp/o"
for opt in --db --server --help; do
    grep -q -- "^  .*$opt" "$tmp/o" && pass || fail "help$opt" "$(cat "$tmp/o")"
done

# ---- 5. --server mode -------------------------------------------------------
printf 's3cret-mcp-token\n' >"$tmp/token"
start_http srv --db "sqlite:$tmp/srv.db" --workers 0 \
    --token-file "$tmp/token" || fail setup.server "$(cat "$tmp/srv.log")"
run modes "sqlite:$tmp/direct.db" "${url_srv:-http://127.0.0.1:1}" \
    s3cret-mcp-token
stop_server srv TERM
check server.stop "$stop_rc" 0

if [ "$failed" -ne 0 ]; then
    echo "stderr of sked mcp:"
    head -c 3000 "$tmp/mcp.err"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
