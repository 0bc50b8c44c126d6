#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A step's environment (docs/execution.md, "The step environment") with a
# real "sked server" whose own environment holds sked's configuration
# (SKED_TOKEN, SKED_DB, SKED_SERVER, and a SKED_ look-alike) and secrets
# of its host; each step runs `env`, and its stored output is read back:
#
#   test_server_step_env.sh
#
# 1. A workflow that asks for nothing gets the documented base, the run
#    variables and its step's env, and nothing else of the server's:
#    HOME, USER and LOGNAME are those of the user the step runs as, from
#    the user database, not the server's $HOME.
# 2. env_inherit: [names] brings those names (PATH replaces the base's).
# 3. env_inherit: true brings the server's variables, but never sked's.
# 4. A workflows file naming SKED_TOKEN in env_inherit is refused at
#    start, with its file, line and column.
# Nowhere in any stored output is the token or the database URL.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=sqlite
. "$here/server_lib.sh"

mode_db env.db
token=tok-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
wf=$tmp/wf.yaml
cat >"$wf" <<'YAML'
workflows:
  plain:
    steps:
      - name: show
        run: ["env"]
        env: {GREETING: hi, SKED_RUN_ID: mine}
  some:
    env_inherit: [APP_MODE, PATH, HOME]
    steps:
      - name: show
        run: ["env"]
  every:
    env_inherit: true
    steps:
      - name: show
        run: ["env"]
  other:
    steps:
      - name: show
        run: ["env"]
        user: nobody
YAML

# The server's environment: only what this test gives it.
server_env=(
    "PATH=$PATH:/opt/app/bin"
    "HOME=$tmp/not-the-home"
    "LANG=C.UTF-8"
    "TZ=Europe/Paris"
    "SKED_TOKEN=$token"
    "SKED_DB=$db"
    "SKED_SERVER=http://127.0.0.1:1"
    "SKED_FUTURE_OPTION=x"
    "APP_MODE=blue"
    "AWS_SECRET_ACCESS_KEY=aws-$token"
)
env -i "${server_env[@]}" "$bin" server --listen 127.0.0.1:0 --db "$db" \
    --workflows "$wf" >"$tmp/a.out" 2>>"$tmp/a.log" &
pid_a=$!
wait_log a "server started" 20 || fail "start" "$(cat "$tmp/a.log")"

# output_of WORKFLOW: run it, wait for its end, print the keys of its
# stored output "KEY=VALUE" lines sorted, one a line; the whole output in
# $tmp/WORKFLOW.env.
output_of() {
    local id deadline=$((SECONDS + 20)) st=
    id=$("$bin" run start "$1" --db "$db")
    while [ $SECONDS -lt $deadline ]; do
        "$bin" run get "$id" --json --db "$db" >"$tmp/$1.json" 2>/dev/null
        st=$($py -c 'import json,sys; print(json.load(sys.stdin)["status"])' \
            <"$tmp/$1.json" 2>/dev/null)
        [ "$st" = completed ] || [ "$st" = failed ] && break
        sleep 0.1
    done
    $py -c 'import json,sys; print(json.load(sys.stdin)["steps"][0]["output"], end="")' \
        <"$tmp/$1.json" >"$tmp/$1.env"
    echo "$id" >"$tmp/$1.id"
    cut -d= -f1 "$tmp/$1.env" | sort | tr '\n' ' '
}

# val WORKFLOW KEY: the value of KEY in WORKFLOW's output.
val() { sed -n "s/^$2=//p" "$tmp/$1.env"; }

run_vars="SKED_ATTEMPT SKED_CONTEXT SKED_DEADLINE SKED_RUN_ID SKED_SCHEDULE \
SKED_SCHEDULED_FOR SKED_STEP SKED_STEP_KEY SKED_TRIGGER SKED_WORKFLOW"
me=$(id -un)
home=$(getent passwd "$me" | cut -d: -f6)

# ---- 1. nothing asked ----------------------------------------------------
keys=$(output_of plain)
check "plain: keys" "$keys" \
    "GREETING HOME LANG LOGNAME PATH SHELL $run_vars TZ USER "
check "plain: PATH" "$(val plain PATH)" \
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
check "plain: HOME from the user database" "$(val plain HOME)" "$home"
check "plain: USER" "$(val plain USER)" "$me"
check "plain: LOGNAME" "$(val plain LOGNAME)" "$me"
check "plain: SHELL" "$(val plain SHELL)" "/bin/sh"
check "plain: LANG" "$(val plain LANG)" "C.UTF-8"
check "plain: TZ" "$(val plain TZ)" "Europe/Paris"
check "plain: the step's env" "$(val plain GREETING)" "hi"
check "plain: the run's id wins" "$(val plain SKED_RUN_ID)" "$(cat "$tmp/plain.id")"

# As another user (a server running as root): that user's HOME and USER.
if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null; then
    output_of other >/dev/null
    check "other user: USER" "$(val other USER)" nobody
    check "other user: HOME" "$(val other HOME)" \
        "$(getent passwd nobody | cut -d: -f6)"
fi

# ---- 2. names ----------------------------------------------------------------
keys=$(output_of some)
check "some: keys" "$keys" \
    "APP_MODE HOME LANG LOGNAME PATH SHELL $run_vars TZ USER "
check "some: APP_MODE" "$(val some APP_MODE)" "blue"
check "some: the server's PATH" "$(val some PATH)" "$PATH:/opt/app/bin"
check "some: the server's HOME" "$(val some HOME)" "$tmp/not-the-home"

# ---- 3. everything but sked's own -----------------------------------------
keys=$(output_of every)
check "every: keys" "$keys" \
    "APP_MODE AWS_SECRET_ACCESS_KEY HOME LANG LOGNAME PATH SHELL $run_vars TZ USER "
check "every: a host secret, as asked" "$(val every AWS_SECRET_ACCESS_KEY)" \
    "aws-$token"

# Nowhere: sked's token, its database, its server, its other options.
for w in plain some every; do
    n=$(grep -c -e "SKED_TOKEN" -e "SKED_DB" -e "SKED_SERVER" -e "SKED_FUTURE" \
        "$tmp/$w.env")
    check "$w: none of sked's configuration" "$n" 0
done
n=$(grep -l -e "=$token" -e "$db" "$tmp/plain.env" "$tmp/some.env" \
    "$tmp/every.env" | wc -l)
check "the token and the database URL in no output" "$n" 0
n=$(q "$db" "SELECT count(*) FROM steps WHERE output LIKE '%=$token%'")
check "the token in no stored output" "$n" 0
stop_server a TERM

# ---- 4. asking for sked's own is refused -------------------------------------
cat >"$tmp/bad.yaml" <<'YAML'
workflows:
  w:
    env_inherit: [PATH, SKED_TOKEN]
    steps:
      - {name: s, run: ["env"]}
YAML
start_server bad --db "sqlite:$tmp/bad.db" --workflows "$tmp/bad.yaml"
stop_rc=0
wait "$pid_bad" || stop_rc=$?
check "refused at start: exit 1" "$stop_rc" 1
n=$(grep -c "bad.yaml:3:25: workflows.w.env_inherit\[1\]: sked's own variables (SKED_\*) are never passed to steps" "$tmp/bad.log")
check "refused at start: where and why" "$n" 1

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
