#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# "sked server" raises its soft limit on open files to the hard one at
# start (docs/execution.md): started with a low soft limit (as a shell's
# 1024, or lower), the running process has soft = hard (/proc/PID/limits),
# logs the figure on its "server started" line, serves more connections
# at once than the soft limit it was given, and its steps inherit the
# raised limit. A soft limit already at the hard one is left as it is.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"
cd "$tmp" || exit 1
hard_max=$(ulimit -Hn)
[ "$hard_max" = unlimited ] && hard_max=65536

cat >wf.yaml <<EOF
workflows:
  lim:
    steps:
      - name: one
        sh: 'ulimit -Sn > "$tmp/step.nofile"'
EOF

# soft_of PID, hard_of PID: the "Max open files" of the process PID.
soft_of() { awk '/^Max open files/ {print $4}' "/proc/$1/limits"; }
hard_of() { awk '/^Max open files/ {print $5}' "/proc/$1/limits"; }

# held URL N: open N keep-alive connections one after another, each kept
# open once answered, and print how many were answered 200 within 5 s
# (a server that cannot accept one more file never answers the rest).
held() {
    "$py" - "$1" "$2" <<'PY'
import socket, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1]); n = int(sys.argv[2])
socks, ok = [], 0
for _ in range(n):
    try:
        s = socket.create_connection((u.hostname, u.port), timeout=5)
        socks.append(s)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            b = s.recv(4096)
            if not b:
                break
            data += b
        ok += data.startswith(b"HTTP/1.1 200")
    except OSError:
        break
for s in socks:
    s.close()
print(ok)
PY
}

# Cases "SOFT:HARD", the hard one at most the test's own.
cases=()
for c in 64:4096 100:1000 256:256 1024:$hard_max 50:$hard_max; do
    [ "${c#*:}" -le "$hard_max" ] && cases+=("$c")
done
i=0
for c in "${cases[@]}"; do
    i=$((i + 1))
    soft=${c%:*} hard=${c#*:}
    # prlimit sets the limits, then becomes the server: $! is its pid.
    prlimit --nofile="$soft:$hard" "$bin" server --db "sqlite:$tmp/l$i.db" \
        --listen 127.0.0.1:0 --workflows wf.yaml --workers 1 \
        >"$tmp/l$i.out" 2>>"$tmp/l$i.log" &
    pid=$!
    printf -v "pid_l$i" '%s' "$pid"
    if ! wait_log "l$i" 'msg="server started"' 20; then
        fail "start $c" "$(cat "$tmp/l$i.log")"
        continue
    fi
    check "soft limit of a server started with $c" "$(soft_of "$pid")" "$hard"
    check "hard limit of a server started with $c" "$(hard_of "$pid")" "$hard"
    grep -q "msg=\"server started\".* open_files=$hard " "$tmp/l$i.log" && pass ||
        fail "the figure is logged ($c)" "$(grep 'server started' "$tmp/l$i.log")"
    if [ "$c" = 64:4096 ]; then
        url=$(grep -m1 'msg="http listening"' "$tmp/l$i.log" | sed -E 's/.*url=([^ ]*).*/\1/')
        check "300 connections held at once, soft limit 64 given" "$(held "$url" 300)" 300
        curl -s -o /dev/null -X POST -H 'Content-Type: application/json' \
            --data '{}' "$url/api/v1/workflows/lim/runs"
        for _ in $(seq 100); do
            [ -s step.nofile ] && break
            sleep 0.1
        done
        check "a step inherits the raised limit" "$(cat step.nofile 2>/dev/null)" "$hard"
    fi
    stop_server "l$i" TERM
    check "stops ($c)" "$stop_rc" 0
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
