#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# "sked server --config FILE", as an administrator uses it:
#  - every option from the file (database, workflows, tick, workers,
#    log_format, log_level, listen): the server serves the file's
#    database and schedules, logs as the file says;
#  - flags win over the file, the file over $SKED_DB;
#  - SIGHUP rereads it: a new log level and a new workflows file apply
#    at once, a changed tick is logged as waiting for a restart, a broken
#    file is refused (FILE:LINE:COL in the log) and the server goes on
#    with what it had;
#  - --check-config says ok (exit 0) or names the fault, starting nothing;
#  - bad files at start (unknown key, wrong type, duplicate key, bad
#    duration, bad word, short token, unreadable token file, not YAML,
#    not a mapping, two documents): exit 2 (1 for a token that cannot be
#    used, as with --token-file), the file's line, column and key named,
#    no database created.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/server_lib.sh"

wf=$tmp/wf.yaml
cat >"$wf" <<'EOF'
schedules:
  - name: every-second
    workflow: noop
    cron: "*/1 * * * * *"
EOF
wf2=$tmp/wf2.yaml
cat >"$wf2" <<'EOF'
schedules:
  - name: second-file
    workflow: noop
    cron: "*/1 * * * * *"
EOF

# ---- everything from the file ---------------------------------------------
cfg=$tmp/sked.yaml
cat >"$cfg" <<EOF
# The server of the test, configured here alone.
database: sqlite:$tmp/from-file.db
workflows: $wf
tick: 1s
workers: 0
log_format: json
log_level: debug
EOF
SKED_DB=sqlite:$tmp/from-env.db start_server a --config "$cfg"
if ! wait_log a '"msg":"server started"' 15; then
    fail "start from the file" "no JSON 'server started': $(head -c 1500 "$tmp/a.log")"
fi
url=$(grep -m1 '"msg":"http listening"' "$tmp/a.log" | sed 's/.*"url":"\([^"]*\)".*/\1/')
curl -s -o /dev/null "$url/healthz"
wait_log a '"msg":"run created"' 10 || fail "fires" "no run created"
check "the file's database, not SKED_DB's" \
    "$(q "sqlite:$tmp/from-file.db" "SELECT count(*) > 0 FROM runs WHERE schedule = 'every-second'")" 1
check "no database of SKED_DB" "$([ -e "$tmp/from-env.db" ] && echo made || echo none)" none
grep -q '"level":"debug"' "$tmp/a.log" && pass || fail "log_level debug" "no debug line"
bad=$(grep -Evc '^\{"time":' "$tmp/a.log")
check "every line JSON (log_format: json)" "$bad" 0

# ---- SIGHUP: a new level and workflows file at once, tick later -------------
cat >"$cfg" <<EOF
database: sqlite:$tmp/from-file.db
workflows: $wf2
tick: 5s
workers: 0
log_format: json
log_level: warn
EOF
: >"$tmp/a.log.mark"
lines_before=$(wc -l <"$tmp/a.log")
kill -HUP "$pid_a"
wait_log a '"msg":"configuration changes wait for a restart".*"keys":"tick"' 10 ||
    fail "tick waits" "no line naming tick: $(tail -n 5 "$tmp/a.log")"
wait_log a '"msg":"log level changed".*"level":"warn"' 10 ||
    fail "level changed" "no line: $(tail -n 5 "$tmp/a.log")"
n=0
for _ in $(seq 1 100); do
    n=$(q "sqlite:$tmp/from-file.db" "SELECT count(*) FROM runs WHERE schedule = 'second-file'")
    [ "${n:-0}" -gt 0 ] && break
    sleep 0.1
done
check_ge "the new workflows file's schedule fires" "$n" 1
sleep 1.5
after=$(tail -n +"$((lines_before + 1))" "$tmp/a.log" | grep -Ev '"msg":"log level changed"' |
    grep -c '"level":"\(debug\|info\)"')
check "no debug or info line once at warn" "$after" 0

# ---- SIGHUP with a broken file keeps what the server had ----------------------
cp "$cfg" "$tmp/good.yaml"
cat >"$cfg" <<EOF
database: sqlite:$tmp/from-file.db
workflows: $wf
log_levle: debug
EOF
kill -HUP "$pid_a"
wait_log a '"msg":"configuration refused".*sked.yaml:3:1: log_levle: unknown key \(did you mean \\"log_level\\"\?\)' 10 ||
    fail "broken file refused" "no FILE:LINE:COL line: $(tail -n 3 "$tmp/a.log")"
before=$(q "sqlite:$tmp/from-file.db" "SELECT count(*) FROM runs WHERE schedule = 'second-file'")
sleep 2.5
now=$(q "sqlite:$tmp/from-file.db" "SELECT count(*) FROM runs WHERE schedule = 'second-file'")
check_ge "still firing the last good workflows file" "$now" "$((before + 2))"
check "the old workflows file not reloaded" \
    "$(grep -c '"msg":"workflows file loaded".*wf.yaml"' "$tmp/a.log")" 1
stop_server a TERM
check "stops with 0" "$stop_rc" 0

# ---- flags win over the file ---------------------------------------------------
cat >"$cfg" <<EOF
database: sqlite:$tmp/flags.db
log_format: json
workers: 0
EOF
start_server b --config "$cfg" --log-format logfmt --db "sqlite:$tmp/flag-db.db"
wait_log b 'msg="server started"' 15 || fail "flags win" "no logfmt line: $(head -c 800 "$tmp/b.log")"
grep -q "db=sqlite:$tmp/flag-db.db" "$tmp/b.log" && pass || fail "--db wins" "$(grep started "$tmp/b.log")"
stop_server b TERM

# ---- --check-config ----------------------------------------------------------------
cat >"$cfg" <<EOF
database: sqlite:$tmp/check.db
workflows: $wf
listen: 127.0.0.1:0
mcp_allow_origin: [https://app.example, https://ops.example]
mcp_session_idle: 10m
lease: 30s
EOF
out=$("$bin" server --config "$cfg" --check-config 2>&1)
check "check-config ok exits 0" "$?" 0
case $out in *"configuration ok"*"$cfg"*) pass ;; *) fail "check-config says ok" "$out" ;; esac
check "check-config creates no database" "$([ -e "$tmp/check.db" ] && echo made || echo none)" none
printf 'schedules:\n  - name: x\n    workflow: noop\n    cron: "61 * * * *"\n' >"$tmp/badwf.yaml"
sed -i "s|^workflows: .*|workflows: $tmp/badwf.yaml|" "$cfg"
out=$("$bin" server --config "$cfg" --check-config 2>&1)
rc=$?
check "a broken workflows file: exit 1" "$rc" 1
case $out in *"badwf.yaml:4:"*) pass ;; *) fail "the workflows file's line" "$out" ;; esac

# ---- bad files at start ---------------------------------------------------------------
# refuse NAME CONTENT WANT [RC]: a server started on CONTENT exits RC
# (default 2, a usage error; 1 for a token that cannot be used), its one
# line holding WANT, and no database is made.
refuse() {
    local f=$tmp/bad.yaml out rc want_rc=${4:-2}
    printf '%s' "$2" >"$f"
    rm -f "$tmp/never.db"
    out=$(timeout 10 "$bin" server --config "$f" --db "sqlite:$tmp/never.db" \
        --listen 127.0.0.1:0 2>&1)
    rc=$?
    check "$1: exit $want_rc" "$rc" "$want_rc"
    case $out in
    "sked: "*"$3"*) pass ;;
    *) fail "$1: message" "got '$out', want '$3'" ;;
    esac
    check "$1: no database" "$([ -e "$tmp/never.db" ] && echo made || echo none)" none
}
printf 'short\n' >"$tmp/short.token"
printf 'a-token-long-enough-1234\n' >"$tmp/unreadable.token"
chmod 000 "$tmp/unreadable.token"
refuse "unknown key" $'workers: 1\nlistn: x\n' "bad.yaml:2:1: listn: unknown key (did you mean \"listen\"?)"
refuse "a list for a value" $'workers: [1, 2]\n' "bad.yaml:1:11: workers: expected a value, found a list"
refuse "a mapping for a value" $'tick:\n  every: 1s\n' "bad.yaml:2:3: tick: expected a value, found a mapping"
refuse "duplicate key" $'tick: 1s\ntick: 2s\n' "bad.yaml:2:1: duplicate key"
refuse "bad duration" $'lease: 1s\n' "bad.yaml:1:1: lease: invalid value \"1s\": expected a duration from 2s to 1h"
refuse "workers out of range" $'workers: 5000\n' "bad.yaml:1:1: workers: invalid value \"5000\": expected a whole number from 0 to 1024"
refuse "bad word" $'log_format: xml\n' "bad.yaml:1:1: log_format: invalid value \"xml\": expected logfmt or json"
refuse "short token" "token_file: $tmp/short.token"$'\n' "bad.yaml:1:1: token_file: invalid value \"$tmp/short.token\": the token must hold 16 to 4096 characters" 1
if [ "$(id -u)" != 0 ]; then
    refuse "unreadable token file" "token_file: $tmp/unreadable.token"$'\n' "token_file: invalid value \"$tmp/unreadable.token\": cannot read it: Permission denied" 1
fi
refuse "missing token file" "token_file: $tmp/none.token"$'\n' "cannot read it: No such file or directory" 1
refuse "not YAML" $'tick: [1s\n' "bad.yaml:"
refuse "not a mapping" $'- tick\n' "bad.yaml:1:3: expected a mapping, found a list"
refuse "two documents" $'tick: 1s\n---\ntick: 2s\n' "bad.yaml:"
rm -f "$tmp/bad.yaml"
out=$("$bin" server --config "$tmp/none.yaml" --check-config 2>&1)
check "a missing --config file: exit 2" "$?" 2
case $out in *"none.yaml: cannot open"*) pass ;; *) fail "missing file named" "$out" ;; esac
chmod 600 "$tmp/unreadable.token"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
