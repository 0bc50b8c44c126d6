#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Upgrading a SQLite database with rows in it: a file at schema 3 (made
# from the migrations of src/store/schema/sqlite up to 0003, with
# schedules, runs of every state, steps and events) is opened by sked,
# which applies 0004 (it rebuilds schedules, runs and steps). Every row
# must come through unchanged - the steps above all, which a careless
# rebuild of runs deletes by its ON DELETE CASCADE - with the file
# intact, every index back, the constraints still refusing bad values,
# the cascade still working, and the planner still using the partial
# indexes over active runs.
#
# Env: SKED_BIN, SKED_SOURCE_DIR. Ends with "N passed, M failed".
set -u

. "$(dirname "$0")/cli_lib.sh"
db=$tmp/old.db
schema=$src/src/store/schema/sqlite
name=migrate

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

for f in "$schema"/0001_*.sql "$schema"/0002_*.sql "$schema"/0003_*.sql; do
    q <"$f" || { echo "cannot apply $f"; exit 1; }
done
q "INSERT INTO meta (key, value) VALUES ('schema_version', '3');
INSERT INTO schedules (name, workflow, kind, cron, timezone, dst, catchup,
    overlap, status, source, next_fire_at, last_fired_at, runs_created,
    description, context, created_at, updated_at)
VALUES ('nightly', 'report', 'cron', '0 2 * * *', 'Europe/Paris', 'cadence',
    'all', 'buffer_all', 'active', 'code', 1800000000000000,
    1799900000000000, 3, 'the report', '{\"a\":[1,2]}', 1, 2),
    ('tick', 'sync', 'every', NULL, 'UTC', 'once', 'skip', 'cancel_other',
    'paused', 'api', NULL, NULL, 0, NULL, '{}', 3, 4);
UPDATE schedules SET every_us = 10000000, anchor_at = 5 WHERE name = 'tick';
INSERT INTO runs (id, workflow, status, trigger_kind, schedule,
    scheduled_for, queue, concurrency_key, not_before, executor,
    lease_until, attempts, created_at, started_at, finished_at, updated_at,
    serial_key, outcome, error, error_code, output)
VALUES ('r-pending', 'report', 'pending', 'cron', 'nightly', 10, 'default',
    'schedule:nightly', 11, NULL, NULL, 0, 12, NULL, NULL, 13, NULL, NULL,
    NULL, NULL, NULL),
    ('r-running', 'report', 'running', 'backfill', 'nightly', 20, 'q1',
    NULL, 21, 'server-a', 99, 1, 22, 23, NULL, 24, 'schedule:nightly',
    NULL, NULL, NULL, NULL),
    ('r-done', 'sync', 'failed', 'manual', 'tick', 30, 'default', NULL, 31,
    NULL, NULL, 2, 32, 33, 34, 35, NULL, 'failed', 'Step two failed.',
    'step_failed', '{\"x\":1}');
INSERT INTO steps (run_id, step, compensation, attempt, status, output,
    stderr_text, truncated, error, error_code, exit_code, started_at,
    finished_at)
VALUES ('r-running', 'one', 0, 1, 'completed', '{\"n\":1}', '', 0, NULL,
    NULL, 0, 23, 24),
    ('r-running', 'two', 0, 1, 'running', NULL, NULL, 0, NULL, NULL, NULL,
    25, NULL),
    ('r-done', 'one', 0, 1, 'failed', NULL, 'boom', 1, 'exit 3',
    'exit_code', 3, 33, 34),
    ('r-done', 'undo', 1, 1, 'completed', NULL, NULL, 0, NULL, NULL, 0, 34,
    34);
INSERT INTO events (type, subject, payload, at)
VALUES ('run.created', 'r-pending', '{}', 12),
    ('step.completed', 'r-running', '{\"step\":\"one\"}', 24);" ||
    { echo "cannot fill the old database"; exit 1; }

# rows: every row, of the columns the old file has (the later migrations
# add schedule columns: they are checked to be NULL below).
old_cols=$(q "SELECT group_concat(name, ', ') FROM pragma_table_info('schedules')")
old_run_cols=$(q "SELECT group_concat(name, ', ') FROM pragma_table_info('runs')")
rows() {
    q "SELECT $old_cols FROM schedules ORDER BY name;
       SELECT $old_run_cols FROM runs ORDER BY id;
       SELECT * FROM steps ORDER BY run_id, step, compensation, attempt;
       SELECT * FROM events ORDER BY id;
       SELECT * FROM queues ORDER BY name;
       SELECT * FROM workflow_versions ORDER BY workflow, version;"
}
before=$(rows)

run --db "sqlite:$db" schedule list
check "sked opens and migrates the old file" "0" "$rc"
# The latest is the highest migration of the folder: 0006_x.sql is 6.
latest=$(ls "$schema" | sed -n 's/^0*\([0-9][0-9]*\)_.*\.sql$/\1/p' |
    sort -n | tail -1)
check "the schema is the latest, $latest" "$latest" \
    "$(q "SELECT value FROM meta WHERE key = 'schema_version'")"
check "every row comes through unchanged" "$before" "$(rows)"
# A new column is NULL in old rows, or its default when it has one.
new_cols() { # TABLE OLD_COLUMNS
    q "SELECT name || ':' || coalesce(dflt_value, 'NULL')
       FROM pragma_table_info('$1')
       WHERE name NOT IN ('$(echo "$2" | sed "s/, /', '/g")')"
}
for t in schedules runs; do
    old=$old_cols
    [ "$t" = runs ] && old=$old_run_cols
    for cd in $(new_cols "$t" "$old"); do
        c=${cd%%:*} d=${cd#*:}
        check "the new column $t.$c is $d in old rows" "0" \
            "$(q "SELECT count(*) FROM $t WHERE $c IS NOT $d")"
    done
done
check "the file is intact" "ok" "$(q 'PRAGMA integrity_check')"
check "no foreign key is broken" "" "$(q 'PRAGMA foreign_key_check')"
check "the indexes are all back, schedules_due gone" \
    "events_at events_subject events_type notify_deliveries_due notify_deliveries_log notify_deliveries_order runs_active_key runs_created runs_deadline runs_ready runs_running runs_running_queue runs_schedule runs_schedule_active runs_serial runs_serial_running runs_started schedules_app schedules_source schedules_updated schedules_workflow" \
    "$(q "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master
          WHERE type = 'index' AND sql IS NOT NULL ORDER BY name)")"
check "no table is left behind" "calendars events meta notifiers notify_deliveries notify_queue queues runs schedule_skips schedules steps workflow_versions" \
    "$(q "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master
          WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name)")"

# The constraints still hold, each way a value can come in.
for bad in "UPDATE runs SET status = 'done' WHERE id = 'r-done'" \
    "UPDATE runs SET trigger_kind = 'x' WHERE id = 'r-done'" \
    "UPDATE runs SET outcome = 'completed' WHERE id = 'r-done'" \
    "UPDATE steps SET status = 'pending' WHERE step = 'undo'" \
    "UPDATE schedules SET status = 'gone' WHERE name = 'tick'" \
    "UPDATE schedules SET overlap = 'never' WHERE name = 'tick'" \
    "UPDATE schedules SET kind = 'yearly' WHERE name = 'tick'" \
    "UPDATE schedules SET catchup = 'some' WHERE name = 'tick'" \
    "UPDATE schedules SET dst = 'twice' WHERE name = 'tick'" \
    "INSERT INTO steps (run_id, step, attempt, status, started_at)
     VALUES ('no-such-run', 's', 1, 'running', 1)" \
    "INSERT INTO runs (id, workflow, trigger_kind, concurrency_key,
     not_before, created_at, updated_at)
     VALUES ('r-dup', 'report', 'cron', 'schedule:nightly', 1, 1, 1)"; do
    name="refused: $bad"
    if q "PRAGMA foreign_keys = ON; $bad" 2>/dev/null; then
        rc=- args=(-) fail "accepted"
    else
        pass
    fi
done
check "refused writes changed nothing" "$before" "$(rows)"
check "a policy of the DST matrix is taken" "skip,both" \
    "$(q "UPDATE schedules SET dst = 'skip,both' WHERE name = 'tick';
          SELECT dst FROM schedules WHERE name = 'tick';
          UPDATE schedules SET dst = 'once' WHERE name = 'tick';")"

# A finished run frees its concurrency key; deleting a run deletes its
# steps (the reference follows the renamed table).
q "PRAGMA foreign_keys = ON;
   UPDATE runs SET status = 'completed' WHERE id = 'r-pending';
   INSERT INTO runs (id, workflow, trigger_kind, concurrency_key,
   not_before, created_at, updated_at)
   VALUES ('r-next', 'report', 'cron', 'schedule:nightly', 1, 1, 1);
   DELETE FROM runs WHERE id = 'r-done';"
check "a finished run frees its key" "1" \
    "$(q "SELECT count(*) FROM runs WHERE id = 'r-next'")"
check "deleting a run deletes its steps" "2" "$(q 'SELECT count(*) FROM steps')"

# The planner still finds the partial indexes over active runs with the
# words the store's queries use.
plan() { q "EXPLAIN QUERY PLAN $1" | tail -n +2 | tr -d '|`-' | xargs; }
check "active runs of a schedule use runs_schedule_active" \
    "SEARCH runs USING INDEX runs_schedule_active (schedule=?)" \
    "$(plan "SELECT count(*) FROM runs WHERE schedule = 'nightly'
             AND (status IN ('pending', 'waiting') OR status = 'running')")"
check "active runs of a serial key use runs_serial" \
    "SEARCH runs USING INDEX runs_serial (serial_key=?)" \
    "$(plan "SELECT id FROM runs WHERE serial_key = 'k'
             AND (status IN ('pending', 'waiting') OR status = 'running')
             ORDER BY coalesce(scheduled_for, created_at), id LIMIT 1")"

check "a schedule's runs are listed from runs_schedule, newest first" \
    "SEARCH runs USING INDEX runs_schedule (schedule=?)" \
    "$(plan "SELECT id FROM runs WHERE schedule = 'nightly'
             AND (NULL IS NULL OR status = NULL)
             ORDER BY created_at DESC, id DESC LIMIT 50")"

# sked reads the migrated rows.
run --db "sqlite:$db" run get r-running --json
check "sked reads a migrated run with its steps" "0 2" \
    "$rc $("$py" -c 'import json,sys; print(len(json.load(sys.stdin)["steps"]))' <"$tmp/out" 2>/dev/null)"

finish
