#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# "sked apply FILE [--prune]" on a SQLite file: the example applies, a
# second apply changes nothing, --prune deletes the file's old schedules
# and leaves those made with the CLI; the file's notifiers become its
# app's (an API one of a name in the file taken over, another app's
# refused), --prune deletes the app's others; and a file with any mistake (a bad
# value on a known line, an unknown key, bad YAML, no file) prints
# "FILE:LINE:COLUMN: path: message" and writes nothing.
#
# Env: SKED_BIN, SKED_SOURCE_DIR. Ends with "N passed, M failed".
set -u

. "$(dirname "$0")/cli_lib.sh"
db=$tmp/s.db
export SKED_DB=sqlite:$db
cd "$tmp" || exit 1

# No server registers this file's workflows: SPEC 3.5's warning about
# them, one per schedule (tested in test_input_rules.sh), is not stderr
# to fail on here.
unwarned() {
    grep -v '^sked: warning: \(schedule ".*": \)\?workflow ".*" is not registered by any server yet' "$tmp/err"
}

# out NAME EXPECTED ARGS...: exit 0, exactly that stdout, no other
# stderr.
out() {
    name=$1 want=$2
    shift 2
    run "$@"
    if [ "$rc" -ne 0 ]; then
        fail "exit $rc, want 0"
    elif [ "$(cat "$tmp/out")" != "$want" ]; then
        fail "stdout differs; want: $want"
    elif unwarned >/dev/null; then
        fail "unexpected stderr"
    else
        pass
    fi
}

names() {
    "$bin" schedule list --json |
        "$py" -c 'import json,sys
for s in json.load(sys.stdin)["schedules"]: print(s["name"], s["source"])'
}

dump() { sqlite3 "$db" .dump; }

# bad NAME EXPECTED_LINE FILE_TEXT: applying the text fails with exit 1
# and exactly the line EXPECTED on stderr, and the database is unchanged.
bad() {
    name=$1 want=$2
    printf '%s' "$3" >bad.yaml
    local before
    before=$(dump)
    run apply bad.yaml
    if [ "$rc" -ne 1 ]; then
        fail "exit $rc, want 1"
    elif [ "$(cat "$tmp/err")" != "$want" ]; then
        fail "stderr differs; want: $want"
    elif [ -s "$tmp/out" ]; then
        fail "unexpected stdout"
    elif [ "$(dump)" != "$before" ]; then
        fail "the database changed"
    else
        pass
    fi
}

# ---- a valid file, applied twice, then pruned -----------------------------

cp "$src/tests/data/spec_workflows.yaml" wf.yaml
out "apply the example" "3 created, 0 updated, 0 unchanged, 0 deleted" \
    apply wf.yaml
name="the example's schedules are there, source code"
[ "$(names)" = "morning-report code
morning-report-weekend code
nightly-cleanup code" ] && pass || fail "got: $(names)"

run schedule get morning-report --json
name="a workflow's schedule takes its name and settings"
"$py" -c 'import json,sys
j = json.load(open(sys.argv[1]))
assert j["workflow"] == "morning-report" and j["cron"] == "0 9 * * 1-5"
assert j["timezone"] == "Europe/Paris" and j["catchup"] == "all"
assert j["catchup_max"] == 5 and j["catchup_window_secs"] == 3 * 86400
assert j["overlap"] == "skip" and j["source"] == "code"' "$tmp/out" &&
    pass || fail "fields differ"
run schedule get morning-report-weekend --json
name="context from YAML is JSON"
"$py" -c 'import json,sys
j = json.load(open(sys.argv[1]))
assert j["context"] == {"weekend": True}, j["context"]' "$tmp/out" &&
    pass || fail "context differs"
run schedule get nightly-cleanup --json
name="a top-level schedule names its workflow"
"$py" -c 'import json,sys
j = json.load(open(sys.argv[1]))
assert j["workflow"] == "cleanup" and j["every_secs"] == 6 * 3600' \
    "$tmp/out" && pass || fail "fields differ"

before=$(dump)
out "apply again: nothing changes" \
    "0 created, 0 updated, 3 unchanged, 0 deleted" apply wf.yaml
name="apply again: the database is the same"
[ "$(dump)" = "$before" ] && pass || fail "the dump differs"

out "--db before the command" "3 created, 0 updated, 0 unchanged, 0 deleted" \
    --db "sqlite:$tmp/other.db" apply wf.yaml
out "--json" '{
  "created": 0,
  "updated": 0,
  "unchanged": 3,
  "deleted": 0
}' apply wf.yaml --json

"$bin" schedule create by-hand --every 1h >/dev/null
sed -i 's/every: 6h/every: 12h/' wf.yaml
out "a changed schedule is updated" \
    "0 created, 1 updated, 2 unchanged, 0 deleted" apply wf.yaml
# small.yaml names the app of wf.yaml (by default, its file name).
cat >small.yaml <<'EOF'
app: wf
schedules:
  - name: nightly-cleanup
    workflow: cleanup
    every: 12h
EOF
out "without --prune nothing is deleted" \
    "0 created, 0 updated, 1 unchanged, 0 deleted" apply small.yaml
out "--prune deletes the code schedules not in the file" \
    "0 created, 0 updated, 1 unchanged, 2 deleted" apply small.yaml --prune
name="--prune leaves the CLI's schedules alone"
[ "$(names)" = "by-hand api
nightly-cleanup code" ] && pass || fail "got: $(names)"

# ---- files with mistakes: one line, FILE:LINE:COL, nothing written ---------

bad "unknown zone on line 12" \
    'sked: bad.yaml:12:5: schedules[1].timezone: unknown time zone "Europe/Pariss"' \
    '# a comment
schedules:
  - name: new-one
    workflow: w
    cron: "0 9 * * *"

  # the second one is wrong
  - name: nightly
    workflow: w
    cron: "0 3 * * *"
    catchup: all
    timezone: Europe/Pariss
'
bad "unknown key" \
    'sked: bad.yaml:4:5: schedules[0].timezon: unknown key (did you mean "timezone"?)' \
    'schedules:
  - workflow: w
    cron: "0 9 * * *"
    timezon: UTC
'
bad "unknown top-level key" 'sked: bad.yaml:1:1: schedule: unknown key (did you mean "schedules"?)' \
    'schedule: []
'
bad "unknown step key" \
    'sked: bad.yaml:5:9: workflows.w.steps[0].neds: unknown key (did you mean "needs"?)' \
    'workflows:
  w:
    steps:
      - name: a
        neds: [b]
        sh: "true"
'
bad "bad value in a workflow's schedule" \
    'sked: bad.yaml:7:9: workflows.w.schedules[0].catchup_max: must be between 1 and 1000' \
    'workflows:
  w:
    steps: [{name: a, sh: "true"}]
    schedules:
      - cron: "0 9 * * *"
        catchup: all
        catchup_max: 0
'
bad "bad duration" \
    'sked: bad.yaml:4:5: schedules[0].every: invalid duration "6 hours": a duration has no spaces' \
    'schedules:
  - name: x
    workflow: w
    every: 6 hours
'
bad "bad instant" \
    'sked: bad.yaml:4:5: schedules[0].at: invalid instant "2026-12-01 09:00": expected '"'"':'"'"', found end of input' \
    'schedules:
  - name: x
    workflow: w
    at: 2026-12-01 09:00
'
bad "two time specs" \
    'sked: bad.yaml:4:5: schedules[0].every: "cron" and "every" both given: use only one of cron, every, at or rrule' \
    'schedules:
  - workflow: w
    cron: "0 9 * * *"
    every: 1h
'
bad "no workflow" 'sked: bad.yaml:2:5: schedules[0]: missing key "workflow"' \
    'schedules:
  - cron: "0 9 * * *"
'
bad "two schedules, one name" \
    'sked: bad.yaml:6:5: schedules[1].name: another schedule has this name' \
    'schedules:
  - name: a
    workflow: w
    every: 1h
  - workflow: w
    name: a
    every: 2h
'
bad "a step with two actions" \
    'sked: bad.yaml:6:9: workflows.w.steps[0].sh: "run" and "sh" both given: use only one of run, sh, http or sleep' \
    'workflows:
  w:
    steps:
      - name: a
        run: [x]
        sh: "true"
'
bad "needs a missing step" \
    'sked: bad.yaml:5:9: workflows.w.steps[0].needs: names an unknown step' \
    'workflows:
  w:
    steps:
      - name: a
        needs: [b]
        sh: "true"
'
bad "bad YAML" 'sked: bad.yaml:3:1: flow sequence without a closing bracket' \
    'schedules: [
  {workflow: w, every: 1h}
'
bad "a tab where YAML wants spaces" \
    "$(printf 'sked: bad.yaml:2:1: ')$(printf 'schedules:\n\t- workflow: w\n' >t.yaml
        "$bin" apply t.yaml 2>&1 | sed 's/^sked: t.yaml:2:1: //')" \
    "$(printf 'schedules:\n\t- workflow: w\n')"
bad "not a mapping" 'sked: bad.yaml:1:3: expected a mapping, found a list' \
    '- a
- b
'
bad "aliases are refused" 'sked: bad.yaml:5:16: aliases are not supported' \
    'schedules:
  - &s {workflow: w, every: 1h, name: a}
  - workflow: w
    every: 1h
    timezone: *s
'

name="a missing file"
before=$(dump)
run apply missing.yaml
[ "$rc" -eq 1 ] && [ "$(cat "$tmp/err")" = \
    "sked: missing.yaml: cannot open: No such file or directory" ] &&
    [ "$(dump)" = "$before" ] && pass || fail "want one line, exit 1"
name="no file given"
run apply
[ "$rc" -eq 2 ] && grep -q "missing the workflows file" "$tmp/err" && pass ||
    fail "want a usage error"
name="an empty file applies nothing"
: >empty.yaml
run apply empty.yaml
[ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = \
    "0 created, 0 updated, 0 unchanged, 0 deleted" ] && pass ||
    fail "want zero counts"

# ---- notifiers: the file's app's, as a server's load makes them ----------
# check GOT WANT: the test $name passes when they are equal.
check() {
    if [ "$1" = "$2" ]; then pass; else fail "got: $1; want: $2"; fi
}
notifiers() {
    "$bin" notify list --json |
        "$py" -c 'import json,sys
for n in json.load(sys.stdin): print(n["name"], n["source"], n["app"], n["kind"])'
}
cat >n1.yaml <<'EOF'
app: alerts
notifiers:
  pager:
    command: {argv: ["/bin/true"]}
    events: [run.failed]
  hook:
    webhook: {url: "http://127.0.0.1:9/hook", secret_env: HOOK_SECRET}
    events: [schedule.paused]
EOF
cat >n2.yaml <<'EOF'
app: alerts
notifiers:
  hook:
    webhook: {url: "http://127.0.0.1:9/other", secret_env: HOOK_SECRET}
    events: [schedule.paused]
EOF
cat >api.yaml <<'EOF'
notifiers:
  pager:
    command: {argv: ["/bin/false"]}
    events: [run.failed]
  by-hand:
    command: {argv: ["/bin/true"]}
    events: [run.failed]
EOF
"$bin" notify apply api.yaml >/dev/null 2>&1
name="sked notify apply makes API notifiers"
check "$(notifiers)" "by-hand api None command
pager api None command"
out "apply writes the file's notifiers (an API one of its names taken over)" \
    "schedules: 0 created, 0 updated, 0 unchanged, 0 deleted
notifiers: 1 created, 1 updated, 0 unchanged, 0 deleted" apply n1.yaml
name="they are the app's code notifiers, the other API one untouched"
check "$(notifiers)" "by-hand api None command
hook code alerts webhook
pager code alerts command"
name="the taken-over notifier is the file's"
check "$("$bin" notify get pager | "$py" -c 'import json,sys; print(json.load(sys.stdin)["command"]["argv"])')" \
    "['/bin/true']"
out "applying it again changes nothing" \
    "schedules: 0 created, 0 updated, 0 unchanged, 0 deleted
notifiers: 0 created, 0 updated, 2 unchanged, 0 deleted" apply n1.yaml
out "without --prune a notifier left out of the file stays" \
    "schedules: 0 created, 0 updated, 0 unchanged, 0 deleted
notifiers: 0 created, 1 updated, 0 unchanged, 0 deleted" apply n2.yaml
name="pager is still there"
check "$(notifiers | cut -d' ' -f1 | tr '\n' ' ')" "by-hand hook pager "
out "--prune deletes the app's code notifiers not in the file" \
    "schedules: 0 created, 0 updated, 0 unchanged, 0 deleted
notifiers: 0 created, 0 updated, 1 unchanged, 1 deleted" apply n2.yaml --prune
name="only the app's: the API notifier stays"
check "$(notifiers | cut -d' ' -f1 | tr '\n' ' ')" "by-hand hook "
name="--json counts them under notifiers"
run apply n2.yaml --json
check "$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["notifiers"])' "$tmp/out")" \
    "{'created': 0, 'updated': 0, 'unchanged': 1, 'deleted': 0}"
bad "a bad notifier in the file" \
    'sked: bad.yaml:4:5: notifiers.x.events: events[0]: "run.nope" is not a notifiable event type' \
    'notifiers:
  x:
    command: {argv: [/bin/true]}
    events: [run.nope]
'
name="another app's notifier name is refused, nothing written"
printf 'app: rival\nnotifiers:\n  hook:\n    command: {argv: [/bin/true]}\n    events: [run.failed]\n' >rival.yaml
before=$(dump)
run apply rival.yaml
[ "$rc" -eq 4 ] && grep -q 'notifiers.hook: a notifier of that name is app alerts' "$tmp/err" &&
    [ "$(dump)" = "$before" ] && pass || fail "exit $rc: $(cat "$tmp/err")"

finish
