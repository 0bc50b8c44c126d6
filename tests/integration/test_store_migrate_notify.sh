#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Upgrading a SQLite database with notifications in it: a file at schema
# 13 (the migrations of src/store/schema/sqlite up to 0013) holding a
# notifier, its events and deliveries that copy their event (one
# delivered, one pending under a lease, and one deleted so that the
# AUTOINCREMENT counter is above the last id) is opened by sked, which
# applies 0014 (it rebuilds notify_deliveries). Every delivery comes
# through unchanged, the notify log shows each with its event as it was
# copied, no id is given twice, and a delivery written the new way (its
# event named, not copied) is shown with the same event as the copy.
# With "pg": the same on PostgreSQL (SKED_TEST_PG_URL), in a schema of
# its own, the events in a page of event_pages as sked writes them.
#
# Env: SKED_BIN, SKED_SOURCE_DIR. Ends with "N passed, M failed".
set -u

. "$(dirname "$0")/cli_lib.sh"
db=$tmp/old.db
schema=$src/src/store/schema/sqlite
args=()

# check NAME WANT GOT: pass when equal.
check() {
    name=$1
    if [ "$2" = "$3" ]; then
        pass
    else
        rc=- args=(-) fail "want [$2], got [$3]"
    fi
}

q() { sqlite3 "$db" "$@"; }

# The log's checks, on the log of $tmp/log1 (the first, just migrated)
# and of $tmp/out (after a delivery of the new kind, id NEW, was added).
log_checks() {
    name="the log shows the old deliveries with their copied events"
    got=$($py -c '
import json, sys
log = {d["id"]: d for d in json.load(open(sys.argv[1]))}
e1, e2 = log[1]["event"], log[2]["event"]
print(sorted(log), log[1]["delivery"], log[2]["delivery"], log[2]["state"],
      log[2]["lease_owner"], e1["payload"], e2["schedule"], e2["payload"])
' "$tmp/log1")
    want="[1, 2] $1-hook $2-hook pending node-a {'schedule': 'nightly-db', 'n': 1.5} None {'error': 'exit 3'}"
    [ "$got" = "$want" ] && pass || rc=- fail "got: $got"

    name="a delivery that names its event shows the event as the copy did"
    run notify log --json --db "$url"
    got=$($py -c '
import json, sys
log = {d["id"]: d for d in json.load(open(sys.argv[1]))}
print(log[int(sys.argv[2])]["delivery"], log[int(sys.argv[2])]["okey"],
      log[int(sys.argv[2])]["event"] == log[2]["event"])
' "$tmp/out" "$3")
    # The idempotency id is the event's id and the notifier's name.
    [ "$got" = "$2-other r-2 True" ] && pass || fail "got: $got"
}

if [ "${1:-}" = pg ]; then
    base=${SKED_TEST_PG_URL:?SKED_TEST_PG_URL names the database}
    ns=migrate_notify
    url="$base&options=-csearch_path%3D$ns"
    case $base in *\?*) ;; *) url="$base?options=-csearch_path%3D$ns" ;; esac
    p() { PGOPTIONS="-c search_path=$ns" psql "$base" -X -q -At -v ON_ERROR_STOP=1 "$@"; }
    p -c "SET client_min_messages = warning; DROP SCHEMA IF EXISTS $ns CASCADE;
          CREATE SCHEMA $ns" || { echo "cannot make the schema"; exit 1; }
    for f in "$src"/src/store/schema/pg/00*.sql; do
        n=$(basename "$f" | cut -c1-4)
        [ "$((10#$n))" -le 13 ] || continue
        p -f "$f" >/dev/null || { echo "cannot apply $f"; exit 1; }
    done
    p <<'SQL' || { echo "cannot fill the old database"; exit 1; }
INSERT INTO meta (key, value) VALUES ('schema_version', '13');
INSERT INTO notifiers (name, kind, config, events, schedules, retry_for_us,
    source, app, created_at, updated_at)
VALUES ('hook', 'webhook', '{"url":"http://127.0.0.1:9/h"}',
    '["run.failed"]', NULL, 3600000000, 'api', NULL, 1, 1);
INSERT INTO event_pages (id, types, subjects, payloads, ats, last_at)
VALUES (64, ARRAY['run.failed', 'run.failed'], ARRAY['r-1', 'r-2'],
    ARRAY['{"schedule":"nightly-db","n":1.50}', '{"error":"exit 3"}'],
    ARRAY[1780000000000000, 1780000001000000]::bigint[], 1780000001000000);
INSERT INTO notify_deliveries (event_id, notifier, okey, event, state,
    attempts, next_attempt_at, deadline_at, lease_owner, lease_until,
    last_error, last_status, created_at, updated_at, delivered_at)
VALUES (64, 'hook', 'nightly-db', '{"id":64,"type":"run.failed",
    "subject":"r-1","schedule":"nightly-db","at":"2026-05-28T20:26:40Z",
    "payload":{"schedule":"nightly-db","n":1.50}}', 'delivered', 1,
    1780000000000000, 1780003600000000, NULL, NULL, NULL, 200,
    1780000000000000, 1780000000500000, 1780000000500000),
    (65, 'hook', 'r-2', '{"id":65,"type":"run.failed","subject":"r-2",
    "schedule":null,"at":"2026-05-28T20:26:41Z",
    "payload":{"error":"exit 3"}}', 'pending', 2, 1780000009000000,
    1780003601000000, 'node-a', 1780000005000000, 'HTTP 500', 500,
    1780000001000000, 1780000003000000, NULL);
SQL
    cols="id, event_id, notifier, okey, event, state, attempts,
        next_attempt_at, deadline_at, lease_owner, lease_until, last_error,
        last_status, created_at, updated_at, delivered_at"
    before=$(p -c "SELECT $cols FROM notify_deliveries ORDER BY id")

    name="sked opens and migrates the old database"
    run notify log --json --db "$url"
    [ $rc -eq 0 ] && pass || fail "exit $rc"
    cp "$tmp/out" "$tmp/log1"
    check "the schema is 14 or later" "yes" \
        "$(p -c "SELECT CASE WHEN value::int >= 14 THEN 'yes' END FROM meta
                 WHERE key = 'schema_version'")"
    check "every delivery comes through unchanged" "$before" \
        "$(p -c "SELECT $cols FROM notify_deliveries ORDER BY id")"
    check "the next id is 3" "3" \
        "$(p -c "INSERT INTO notify_deliveries (event_id, notifier, okey,
                     unscheduled, next_attempt_at, deadline_at, created_at,
                     updated_at)
                 VALUES (65, 'other', 'r-2', true, 1780000001000000,
                     1780003601000000, 1780000001000000, 1780000001000000)
                 RETURNING id" | head -1)"
    log_checks 64 65 3
    p -c "SET client_min_messages = warning; DROP SCHEMA $ns CASCADE"
    finish
    exit
fi

for f in "$schema"/00*.sql; do
    n=$(basename "$f" | cut -c1-4)
    [ "$((10#$n))" -le 13 ] || continue
    q <"$f" || { echo "cannot apply $f"; exit 1; }
done
q "INSERT INTO meta (key, value) VALUES ('schema_version', '13');
INSERT INTO notifiers (name, kind, config, events, schedules, retry_for_us,
    source, app, created_at, updated_at)
VALUES ('hook', 'webhook', '{\"url\":\"http://127.0.0.1:9/h\"}',
    '[\"run.failed\"]', NULL, 3600000000, 'api', NULL, 1, 1);
INSERT INTO events (type, subject, payload, at)
VALUES ('run.failed', 'r-1', '{\"schedule\":\"nightly-db\",\"n\":1.50}',
    1780000000000000),
    ('run.failed', 'r-2', '{\"error\":\"exit 3\"}', 1780000001000000);
INSERT INTO notify_deliveries (event_id, notifier, okey, event, state,
    attempts, next_attempt_at, deadline_at, lease_owner, lease_until,
    last_error, last_status, created_at, updated_at, delivered_at)
VALUES (1, 'hook', 'nightly-db', '{\"id\":1,\"type\":\"run.failed\",
    \"subject\":\"r-1\",\"schedule\":\"nightly-db\",
    \"at\":\"2026-05-28T20:26:40Z\",
    \"payload\":{\"schedule\":\"nightly-db\",\"n\":1.50}}', 'delivered', 1,
    1780000000000000, 1780003600000000, NULL, NULL, NULL, 200,
    1780000000000000, 1780000000500000, 1780000000500000),
    (2, 'hook', 'r-2', '{\"id\":2,\"type\":\"run.failed\",\"subject\":\"r-2\",
    \"schedule\":null,\"at\":\"2026-05-28T20:26:41Z\",
    \"payload\":{\"error\":\"exit 3\"}}', 'pending', 2, 1780000009000000,
    1780003601000000, 'node-a', 1780000005000000, 'HTTP 500', 500,
    1780000001000000, 1780000003000000, NULL),
    (1, 'gone', 'nightly-db', '{}', 'failed', 0, 1, 1, NULL, NULL,
    'notifier deleted', NULL, 1, 1, NULL);
DELETE FROM notify_deliveries WHERE id = 3;" ||
    { echo "cannot fill the old database"; exit 1; }

cols="id, event_id, notifier, okey, event, state, attempts, next_attempt_at,
    deadline_at, lease_owner, lease_until, last_error, last_status,
    created_at, updated_at, delivered_at"
rows() { q "SELECT $cols FROM notify_deliveries ORDER BY id"; }
before=$(rows)

name="sked opens and migrates the old file"
run notify log --json --db "sqlite:$db"
[ $rc -eq 0 ] && pass || fail "exit $rc"
cp "$tmp/out" "$tmp/log1"
check "the schema is 14 or later" "yes" \
    "$(q "SELECT CASE WHEN value >= 14 THEN 'yes' END FROM meta
          WHERE key = 'schema_version'")"
check "every delivery comes through unchanged" "$before" "$(rows)"
check "the old deliveries have no unscheduled mark" "0" \
    "$(q "SELECT count(*) FROM notify_deliveries WHERE unscheduled IS NOT NULL")"
check "the file is intact" "ok" "$(q 'PRAGMA integrity_check')"
check "the outbox's indexes are back" \
    "notify_deliveries_due notify_deliveries_log notify_deliveries_order sqlite_autoindex_notify_deliveries_1" \
    "$(q "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master
          WHERE type = 'index' AND tbl_name = 'notify_deliveries'
          ORDER BY name)")"
check "the counter is carried over: the next id is 4, not 3" "4" \
    "$(q "INSERT INTO notify_deliveries (event_id, notifier, okey,
              unscheduled, next_attempt_at, deadline_at, created_at,
              updated_at)
          VALUES (2, 'other', 'r-2', 1, 1780000001000000, 1780003601000000,
              1780000001000000, 1780000001000000) RETURNING id")"

url="sqlite:$db"
log_checks 1 2 4

finish
