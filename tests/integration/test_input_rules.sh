#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One rule per field, the same through every entry point (issue 14): the
# CLI on the database, the API of a real "sked server" over loopback, and
# the workflows file; the library's side is in tests/unit. Each rule is
# tried with a generated set of values, and every refusal must leave the
# database as it was.
#
# 1. Idempotency keys and names that become part of a URL: printable
#    UTF-8, at most 200 bytes, no '/', neither "." nor ".."; the API
#    answers 422 naming Idempotency-Key, the CLI exits 1. A run row no
#    sked would write, planted in the file under a running server, is set
#    aside (failed, logged) and the other runs go on.
#
# 2. Time zones (item 13): "" is no zone (never UTC by default);
#    "localtime", "posixrules" and "right/..." are refused with why.
# 3. Messages are whole UTF-8 (item 17): a multi-byte character of an
#    expression is quoted whole, a byte that is no UTF-8 as "byte 0xNN",
#    and every stderr line and API body is valid UTF-8.
# 4. The workflows file (item 14): a second document, a tag, a FIFO or
#    a device are refused, by "sked apply" and by "sked server", at once
#    and naming the line.
# 5. A one-time schedule "at" an instant already past (item 16) is
#    refused unless allow_past (--allow-past), by the CLI on the
#    database and through the server, the API and the workflows file; a
#    schedule of a workflow no server registered is created with SPEC
#    3.5's warning: on the CLI's stderr, in the API's "warnings"; an
#    apply ("sked apply", PUT /api/v1/schedules) warns once per schedule
#    of such a workflow, naming the schedule.
#
# Env: SKED_BIN. Ends with "N passed, M failed".
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=${SKED_SOURCE_DIR:-$here/../..}
. "$here/server_lib.sh"
# The pinned zones, plus what a host's directory has beside its zones
# (Debian: tzdata and tzdata-legacy), as real TZif files.
cp -r "$src/tests/data/zoneinfo" "$tmp/zoneinfo"
mkdir -p "$tmp/zoneinfo/right/Europe"
for f in localtime posixrules right/Europe/Paris right/UTC; do
    cp "$tmp/zoneinfo/Europe/Paris" "$tmp/zoneinfo/$f"
done
export TZDIR=$tmp/zoneinfo
unset SKED_DB SKED_SERVER SKED_TOKEN
db=sqlite:$tmp/rules.db
file=$tmp/rules.db

cat >"$tmp/wf.yaml" <<'EOF'
workflows:
  quick:
    steps:
      - name: one
        sh: 'true'
EOF

runs() { q "$db" 'SELECT count(*) FROM runs'; }
schedules() { q "$db" 'SELECT count(*) FROM schedules'; }

# api METHOD PATH [BODY] [HEADER...]: one request; $tmp/body gets the
# answer, the variable code its status.
api() {
    local m=$1 p=$2 body=${3:-} h=()
    shift 3 2>/dev/null || shift $#
    for x in "$@"; do h+=(-H "$x"); done
    code=$(curl -s -o "$tmp/body" -w '%{http_code}' -X "$m" \
        -H 'Content-Type: application/json' "${h[@]}" \
        ${body:+--data-binary "$body"} "$url_s$p")
}

# field: the "field" of the error in $tmp/body.
field() {
    "$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"].get("field",""))' \
        "$tmp/body" 2>/dev/null
}

# valid_utf8 FILE: the file is valid UTF-8.
valid_utf8() { "$py" -c 'import sys; open(sys.argv[1],"rb").read().decode()' "$1" 2>/dev/null; }

start_http s --db "$db" --workflows "$tmp/wf.yaml" --workers 2 ||
    { fail "server" "did not listen: $(cat "$tmp/s.log")"; exit 1; }

# ---- 1. idempotency keys ------------------------------------------------
long=$(printf 'k%.0s' $(seq 201))
bad_keys=($'\xff' $'a\xc3' $'\xc0\xaf' $'\xed\xa0\x80' 'a/b' '/' '.' '..'
    $'a\x01b' $'a\x7f' $'a\xc2\x85b' $'a\tb' ' lead' 'trail ' "$long")
before=$(runs)
for k in "${bad_keys[@]}"; do
    shown=$(printf '%q' "$k" | head -c 40)
    "$bin" run start quick --db "$db" --idempotency-key "$k" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 1 ] || ! grep -q 'idempotency_key' "$tmp/err"; then
        fail "cli key $shown" "exit $rc: $(cat "$tmp/err")"
    elif ! valid_utf8 "$tmp/err"; then
        fail "cli key $shown" "stderr is not UTF-8"
    else pass; fi
    # A header value loses its spaces at the ends on the wire (RFC 9110
    # 5.5): those keys are the CLI's only.
    case $k in ' lead' | 'trail ') continue ;; esac
    api POST /api/v1/workflows/quick/runs '{}' "Idempotency-Key: $k"
    if [ "$code" != 422 ] || [ "$(field)" != Idempotency-Key ]; then
        fail "api key $shown" "$code $(cat "$tmp/body")"
    elif ! valid_utf8 "$tmp/body"; then
        fail "api key $shown" "body is not UTF-8"
    else pass; fi
done
check "refused keys wrote nothing" "$(runs)" "$before"

good_keys=('k1' 'x.y' 'a b' 'été' '日本語-キー' "$(printf 'k%.0s' $(seq 200))" '%2F' 'a?b#c')
for k in "${good_keys[@]}"; do
    "$bin" run start quick --db "$db" --idempotency-key "$k" >"$tmp/out" 2>"$tmp/err"
    check "cli key ok $k" "$?" 0
    id=$(cat "$tmp/out")
    api POST /api/v1/workflows/quick/runs '{}' "Idempotency-Key: $k"
    check "api key ok $k (the same run)" "$code" 200
    enc=$("$py" -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$id")
    api GET "/api/v1/runs/$enc"
    check "api reads run of key $k" "$code" 200
done

# ---- 1. names that would be paths --------------------------------------
before=$(schedules)
for n in . ..; do
    "$bin" schedule create quick '* * * * *' --name "$n" --db "$db" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q 'name' "$tmp/err" && pass ||
        fail "cli schedule name $n" "exit $rc: $(cat "$tmp/err")"
    api POST /api/v1/schedules "{\"name\":\"$n\",\"workflow\":\"quick\",\"cron\":\"* * * * *\"}"
    [ "$code" = 422 ] && [ "$(field)" = name ] && pass ||
        fail "api schedule name $n" "$code $(cat "$tmp/body")"
    api POST /api/v1/schedules "{\"name\":\"s$n\",\"workflow\":\"$n\",\"cron\":\"* * * * *\"}"
    [ "$code" = 422 ] && [ "$(field)" = workflow ] && pass ||
        fail "api workflow name $n" "$code $(cat "$tmp/body")"
    printf 'schedules:\n  - name: "%s"\n    workflow: quick\n    every: 1h\n' "$n" \
        >"$tmp/dot.yaml"
    "$bin" apply "$tmp/dot.yaml" --db "$db" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q 'dot.yaml:2:[0-9]*:.*name' "$tmp/err" && pass ||
        fail "yaml schedule name $n" "exit $rc: $(cat "$tmp/err")"
done
check "refused names wrote nothing" "$(schedules)" "$before"

# ---- 1. a planted row is set aside, the others run ----------------------
q "$db" "INSERT INTO runs (id, workflow, status, trigger_kind, queue, priority,
    attempts, not_before, created_at, updated_at, context)
    SELECT 'api-quick-key-' || CAST(X'FF' AS TEXT), workflow, 'pending',
    trigger_kind, queue, priority, 0, not_before, created_at, updated_at, context
    FROM runs WHERE id = 'api-quick-key-k1'" ||
    fail "plant" "the insert failed"
q "$db" "UPDATE runs SET status = 'pending', not_before = 0
    WHERE id = 'api-quick-key-k1'"
"$bin" run start quick --db "$db" --idempotency-key after >/dev/null 2>&1
for _ in $(seq 100); do
    [ "$(q "$db" "SELECT count(*) FROM runs WHERE id IN
        ('api-quick-key-after', 'api-quick-key-k1') AND status = 'completed'")" = 2 ] && break
    sleep 0.1
done
check "runs beside the bad row complete" "$(q "$db" "SELECT count(*) FROM runs
    WHERE id IN ('api-quick-key-after', 'api-quick-key-k1')
    AND status = 'completed'")" 2
check "the bad row is failed, unreadable" "$(q "$db" "SELECT status, error_code
    FROM runs WHERE id = 'api-quick-key-' || CAST(X'FF' AS TEXT)")" \
    "failed|unreadable"
grep -q 'msg="run failed".*unreadable run set aside' "$tmp/s.log" && pass ||
    fail "set aside is logged" "$(grep -i 'unread\|fail' "$tmp/s.log" | head -5)"
api GET /api/v1/runs
check "the run list answers" "$code" 200
valid_utf8 "$tmp/body" && pass || fail "run list" "not UTF-8"

# ---- 2. time zones -----------------------------------------------------
before=$(schedules)
zones=('' localtime posixrules right/Europe/Paris right/UTC)
whys=('empty time zone' 'differs between machines' 'not a zone' 'leap seconds'
    'leap seconds')
for i in "${!zones[@]}"; do
    z=${zones[$i]} why=${whys[$i]}
    "$bin" schedule create quick '0 9 * * *' --name "z$i" --timezone "$z" \
        --db "$db" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q "$why" "$tmp/err" && pass ||
        fail "cli create --timezone '$z'" "exit $rc: $(cat "$tmp/err")"
    if [ -n "$z" ]; then
        "$bin" cron next '0 9 * * *' --tz "$z" -n 1 >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ $rc -eq 1 ] && grep -q "$why" "$tmp/err" && pass ||
            fail "cli cron next --tz '$z'" "exit $rc: $(cat "$tmp/err")"
    fi
    api POST /api/v1/schedules "{\"name\":\"z$i\",\"workflow\":\"quick\",\"cron\":\"0 9 * * *\",\"timezone\":\"$z\"}"
    [ "$code" = 422 ] && [ "$(field)" = timezone ] && grep -q "$why" "$tmp/body" &&
        pass || fail "api timezone '$z'" "$code $(cat "$tmp/body")"
    printf 'schedules:\n  - name: z%s\n    workflow: quick\n    cron: "0 9 * * *"\n    timezone: "%s"\n' \
        "$i" "$z" >"$tmp/tz.yaml"
    "$bin" apply "$tmp/tz.yaml" --db "$db" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q "tz.yaml:5:[0-9]*:.*$why" "$tmp/err" && pass ||
        fail "yaml timezone '$z'" "exit $rc: $(cat "$tmp/err")"
done
"$bin" schedule create quick '0 9 * * *' --name zok --timezone Europe/Paris \
    --db "$db" >/dev/null 2>&1
"$bin" schedule update zok --timezone '' --db "$db" >"$tmp/out" 2>"$tmp/err"
check "cli update --timezone '' refused" "$?" 1
check "the zone stays" "$(q "$db" "SELECT timezone FROM schedules WHERE name = 'zok'")" \
    Europe/Paris
api PATCH /api/v1/schedules/zok '{"timezone":""}'
check "api update timezone '' refused" "$code" 422
check "refused zones wrote nothing" "$(schedules)" "$((before + 1))"

# ---- 3. messages are whole UTF-8 --------------------------------------
before=$(schedules)
for ch in '½' 'é' '日' '😀' $'\xff' $'\xc3'; do
    case $ch in $'\xff' | $'\xc3') want="byte 0x" ;; *) want="'$ch'" ;; esac
    for expr in "$ch * * * *" "1,$ch * * * *" "* * * * $ch"; do
        "$bin" cron validate "$expr" >"$tmp/out" 2>"$tmp/err"
        grep -qF "unexpected character $want" "$tmp/err" && valid_utf8 "$tmp/err" &&
            pass || fail "cli cron '$expr'" "$(od -c "$tmp/err" | head -3)"
        "$bin" schedule create quick "$expr" --name u1 --db "$db" >"$tmp/out" 2>"$tmp/err"
        valid_utf8 "$tmp/err" && grep -qF "$want" "$tmp/err" && pass ||
            fail "cli create '$expr'" "$(od -c "$tmp/err" | head -3)"
        printf 'schedules:\n  - name: u1\n    workflow: quick\n    cron: "%s"\n' \
            "$expr" >"$tmp/u.yaml"
        "$bin" apply "$tmp/u.yaml" --db "$db" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        case $ch in $'\xff' | $'\xc3') ;; # the YAML reader refuses the file
        *) [ $rc -eq 1 ] && grep -qF "unexpected character $want" "$tmp/err" &&
            valid_utf8 "$tmp/err" && pass || fail "yaml cron '$expr'" "$(cat "$tmp/err")" ;;
        esac
        valid_utf8 "$tmp/err" && pass || fail "yaml cron '$expr' UTF-8" "$(od -c "$tmp/err" | head)"
        case $ch in $'\xff' | $'\xc3') continue ;; esac # JSON is UTF-8
        api POST /api/v1/schedules "{\"name\":\"u1\",\"workflow\":\"quick\",\"cron\":\"$expr\"}"
        [ "$code" = 422 ] && grep -qF "unexpected character $want" "$tmp/body" && pass ||
            fail "api cron '$expr'" "$code $(cat "$tmp/body")"
    done
done
check "refused expressions wrote nothing" "$(schedules)" "$before"

# ---- 4. the workflows file ----------------------------------------------
before=$(schedules)
printf 'schedules:\n  - {name: d1, workflow: quick, every: 1h}\n---\nschedules:\n  - {name: d2, workflow: quick, every: 1h}\n' \
    >"$tmp/multi.yaml"
printf 'schedules:\n  - {name: t1, workflow: quick, every: !!str 1h}\n' >"$tmp/tag.yaml"
mkfifo "$tmp/fifo.yaml"
for f in multi.yaml:3:1:'second YAML document' tag.yaml:2:40:'tags' \
    fifo.yaml::'a FIFO, not a regular file' /dev/null::'a device'; do
    IFS=: read -r name line col why <<<"$f"
    path=$name
    case $name in /*) ;; *) path=$tmp/$name ;; esac
    where=$path:${line:+$line:$col:}
    timeout -k 2 10 "$bin" apply "$path" --db "$db" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && grep -qF "$where" "$tmp/err" && grep -qF "$why" "$tmp/err" &&
        pass || fail "apply $name" "exit $rc: $(cat "$tmp/err")"
    timeout -k 2 10 "$bin" server --db "sqlite:$tmp/other.db" --workflows "$path" \
        --listen 127.0.0.1:0 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && grep -qF "$why" "$tmp/err" && pass ||
        fail "server --workflows $name" "exit $rc: $(tail -3 "$tmp/err")"
done
check "refused files wrote nothing" "$(schedules)" "$before"

# ---- 5. "at" in the past, and unregistered workflows --------------------
before=$(schedules)
past=("2020-01-01T00:00:00Z" "$("$py" -c 'import datetime as d; print((d.datetime.now(d.timezone.utc) - d.timedelta(seconds=5)).strftime("%Y-%m-%dT%H:%M:%SZ"))')"
    "1999-12-31T23:00:00-01:00")
for i in "${!past[@]}"; do
    at=${past[$i]}
    for where in "--db $db" "--server $url_s"; do
        "$bin" schedule create quick --at "$at" --name "p$i" $where \
            >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ $rc -eq 1 ] && grep -q 'in the past' "$tmp/err" && pass ||
            fail "cli --at $at $where" "exit $rc: $(cat "$tmp/err")"
    done
    api POST /api/v1/schedules "{\"name\":\"p$i\",\"workflow\":\"quick\",\"at\":\"$at\"}"
    [ "$code" = 422 ] && [ "$(field)" = at ] && grep -q 'in the past' "$tmp/body" &&
        pass || fail "api at $at" "$code $(cat "$tmp/body")"
    printf 'schedules:\n  - name: p%s\n    workflow: quick\n    at: "%s"\n' "$i" "$at" \
        >"$tmp/past.yaml"
    "$bin" apply "$tmp/past.yaml" --db "$db" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q 'past.yaml:[0-9]*:[0-9]*: .*at: .*in the past' "$tmp/err" &&
        pass || fail "yaml at $at" "exit $rc: $(cat "$tmp/err")"
done
check "past instants wrote nothing" "$(schedules)" "$before"
"$bin" schedule create quick --at "${past[0]}" --name pa0 --allow-past \
    --db "$db" >"$tmp/out" 2>"$tmp/err"
check "cli --allow-past" "$?" 0
"$bin" schedule create quick --at "${past[0]}" --name pa1 --allow-past \
    --server "$url_s" >"$tmp/out" 2>"$tmp/err"
check "cli --allow-past through the server" "$?" 0
api POST /api/v1/schedules "{\"name\":\"pa2\",\"workflow\":\"quick\",\"at\":\"${past[0]}\",\"allow_past\":true}"
check "api allow_past" "$code" 201
grep -q allow_past "$tmp/body" && fail "api allow_past" "written back" || pass
printf 'schedules:\n  - {name: pa3, workflow: quick, at: "%s", allow_past: true}\n' \
    "${past[0]}" >"$tmp/past.yaml"
"$bin" apply "$tmp/past.yaml" --db "$db" >"$tmp/out" 2>"$tmp/err"
check "yaml allow_past" "$?" 0
"$bin" apply "$tmp/past.yaml" --db "$db" >"$tmp/out" 2>"$tmp/err"
check "yaml allow_past applied again: unchanged" "$(cat "$tmp/out")" \
    "0 created, 0 updated, 1 unchanged, 0 deleted"
"$bin" schedule update pa0 --description kept --db "$db" >"$tmp/out" 2>"$tmp/err"
check "an update keeps its past instant" "$?" 0
"$bin" schedule update pa0 --at "${past[2]}" --db "$db" >"$tmp/out" 2>"$tmp/err"
check "an update to another past instant is refused" "$?" 1
check "past: only the allowed ones" "$(schedules)" "$((before + 4))"

for where in "--db $db" "--server $url_s"; do
    n=g$RANDOM
    "$bin" schedule create ghost '0 9 * * *' --name "$n" $where >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] && grep -q '^sked: warning: workflow "ghost" is not registered by any server' \
        "$tmp/err" && pass || fail "cli warning $where" "exit $rc: $(cat "$tmp/err")"
    "$bin" schedule update "$n" --workflow quick $where >"$tmp/out" 2>"$tmp/err"
    [ $? -eq 0 ] && [ ! -s "$tmp/err" ] && pass ||
        fail "cli no warning for a registered workflow $where" "$(cat "$tmp/err")"
done
api POST /api/v1/schedules '{"name":"g-api","workflow":"ghost","cron":"0 9 * * *"}'
got=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("warnings"))' "$tmp/body")
case $got in *'workflow "ghost" is not registered by any server'*) pass ;;
*) fail "api warnings" "$code $(cat "$tmp/body")" ;; esac
api POST /api/v1/schedules '{"name":"g-ok","workflow":"quick","cron":"0 9 * * *"}'
grep -q warnings "$tmp/body" && fail "api no warnings" "$(cat "$tmp/body")" || pass

# Apply: generated sets of schedules, some of unregistered workflows
# (several schedules of one of them), the rest of "quick"; the warnings
# are exactly the unregistered ones', one each, naming the schedule.
for round in 1 2 3 4; do
    names=() want=()
    printf 'app: warn%s\nschedules:\n' "$round" >"$tmp/set.yaml"
    set_json=
    for i in $(seq $((RANDOM % 6 + 1))); do
        n=s$round-$i-$RANDOM
        case $((RANDOM % 3)) in
        0) w=quick ;; 1) w=ghost ;; *) w=ghost$round ;; esac
        [ "$w" = quick ] || want+=("schedule \"$n\": workflow \"$w\" is not registered by any server yet")
        printf '  - {name: %s, workflow: %s, cron: "0 9 * * *"}\n' "$n" "$w" >>"$tmp/set.yaml"
        set_json="$set_json${set_json:+,}{\"name\":\"$n-api\",\"workflow\":\"$w\",\"cron\":\"0 9 * * *\"}"
    done
    printf '%s\n' "${want[@]}" | sed '/^$/d' >"$tmp/want"
    for where in "--db $db" "--server $url_s"; do
        "$bin" apply "$tmp/set.yaml" $where >"$tmp/out" 2>"$tmp/err"
        rc=$?
        sed -n 's/^sked: warning: \(.*\): its runs wait.*/\1/p' "$tmp/err" >"$tmp/got"
        if [ $rc -ne 0 ] || ! cmp -s "$tmp/want" "$tmp/got" ||
            [ "$(wc -l <"$tmp/err")" -ne "$(wc -l <"$tmp/want")" ]; then
            fail "apply warnings $round $where" "exit $rc: want $(cat "$tmp/want") got $(cat "$tmp/err")"
        else pass; fi
    done
    api PUT /api/v1/schedules "{\"app\":\"warn-api$round\",\"schedules\":[$set_json]}"
    "$py" -c 'import json,sys
for w in json.load(open(sys.argv[1])).get("warnings", []):
    print(w.split(": its runs wait")[0].replace("-api\"", "\"", 1))' "$tmp/body" >"$tmp/got"
    if [ "$code" != 200 ] || ! cmp -s "$tmp/want" "$tmp/got"; then
        fail "api PUT warnings $round" "$code want $(cat "$tmp/want") got $(cat "$tmp/body")"
    else pass; fi
    # Without any unregistered workflow, no "warnings" at all.
    [ -s "$tmp/want" ] || { grep -q warnings "$tmp/body" &&
        fail "api PUT no warnings $round" "$(cat "$tmp/body")" || pass; }
done
api PUT /api/v1/schedules '{"app":"warn-ok","schedules":[{"name":"w-ok","workflow":"quick","cron":"0 9 * * *"}]}'
[ "$code" = 200 ] && ! grep -q warnings "$tmp/body" && pass ||
    fail "api PUT of registered workflows: no warnings" "$code $(cat "$tmp/body")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
