-- SPDX-License-Identifier: MIT
-- sked schema, version 12, SQLite dialect: deadlines and heartbeat
-- schedules. schema/pg/0012_deadlines.sql has the same columns, indexes and
-- meanings.
--
-- schedules.deadline_us, start_deadline_us: how long after its occurrence
--   a run must have completed (started); 0: no deadline.
-- schedules.heartbeat: 1 for a schedule whose runs are pings from a job
--   that runs elsewhere (sked ping): its runs start nothing.
-- schedules.deadline_check_at: the earliest deadline of its runs still to
--   be checked (NULL: none); the scheduler keeps it in its heap beside
--   next_fire_at.
-- schedules.deadlines_missed, last_deadline_missed_at: how many deadlines
--   its runs missed, and the occurrence of the last one.
-- runs.deadline_at: the run's next deadline check (its start deadline, then
--   its completion deadline; NULL: nothing left to check), read through
--   runs_deadline by schedule, so a check never scans other runs.
-- runs.deadline_missed: "start", "completion" or "start,completion".
--
-- A heartbeat run has trigger 'heartbeat'. SQLite cannot alter a CHECK
-- constraint, so runs and steps are rebuilt with their rows as in
-- version 4 (steps copied to a table referencing runs_new first, so that
-- dropping runs cascades to nothing), the new trigger added to the OR
-- chain (a list after IN would build a b-tree per row written).
ALTER TABLE schedules ADD COLUMN deadline_us INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedules ADD COLUMN start_deadline_us INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedules ADD COLUMN heartbeat INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedules ADD COLUMN deadline_check_at INTEGER;
ALTER TABLE schedules ADD COLUMN deadlines_missed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedules ADD COLUMN last_deadline_missed_at INTEGER;

CREATE TABLE runs_new (
    id                  TEXT PRIMARY KEY,
    workflow            TEXT NOT NULL,
    workflow_version    TEXT,
    status              TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status = 'pending' OR status = 'running'
                               OR status = 'waiting' OR status = 'completed'
                               OR status = 'failed' OR status = 'cancelled'),
    trigger_kind        TEXT NOT NULL
                        CHECK (trigger_kind = 'cron'
                               OR trigger_kind = 'catchup'
                               OR trigger_kind = 'backfill'
                               OR trigger_kind = 'manual'
                               OR trigger_kind = 'api'
                               OR trigger_kind = 'heartbeat'),
    schedule            TEXT,
    scheduled_for       INTEGER,
    queue               TEXT NOT NULL DEFAULT 'default',
    priority            INTEGER NOT NULL DEFAULT 0,
    concurrency_key     TEXT,
    not_before          INTEGER NOT NULL,
    executor            TEXT,
    lease_until         INTEGER,
    context             TEXT NOT NULL DEFAULT '{}',
    output              TEXT,
    error               TEXT,
    error_code          TEXT,
    attempts            INTEGER NOT NULL DEFAULT 0,
    created_at          INTEGER NOT NULL,
    started_at          INTEGER,
    finished_at         INTEGER,
    updated_at          INTEGER NOT NULL,
    serial_key          TEXT,
    cancel_requested_at INTEGER,
    timeout_exceeded_at INTEGER,
    outcome             TEXT CHECK (outcome IN ('failed', 'cancelled')),
    occurrence_at       INTEGER,
    deadline_at         INTEGER,
    deadline_missed     TEXT
);
INSERT INTO runs_new SELECT id, workflow, workflow_version, status,
    trigger_kind, schedule, scheduled_for, queue, priority, concurrency_key,
    not_before, executor, lease_until, context, output, error, error_code,
    attempts, created_at, started_at, finished_at, updated_at, serial_key,
    cancel_requested_at, timeout_exceeded_at, outcome, occurrence_at, NULL,
    NULL
    FROM runs;

CREATE TABLE steps_new (
    run_id       TEXT NOT NULL REFERENCES runs_new (id) ON DELETE CASCADE,
    step         TEXT NOT NULL,
    compensation INTEGER NOT NULL DEFAULT 0 CHECK (compensation IN (0, 1)),
    attempt      INTEGER NOT NULL CHECK (attempt >= 1),
    status       TEXT NOT NULL
                 CHECK (status = 'running' OR status = 'completed'
                        OR status = 'failed' OR status = 'cancelled'),
    output       TEXT,
    stderr_text  TEXT,
    truncated    INTEGER NOT NULL DEFAULT 0,
    error        TEXT,
    error_code   TEXT,
    exit_code    INTEGER,
    started_at   INTEGER NOT NULL,
    finished_at  INTEGER,
    PRIMARY KEY (run_id, step, compensation, attempt)
);
INSERT INTO steps_new SELECT run_id, step, compensation, attempt, status,
    output, stderr_text, truncated, error, error_code, exit_code, started_at,
    finished_at
    FROM steps;
DROP TABLE steps;
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;
ALTER TABLE steps_new RENAME TO steps;

CREATE UNIQUE INDEX runs_active_key ON runs (concurrency_key)
    WHERE concurrency_key IS NOT NULL
      AND (status IN ('pending', 'waiting') OR status = 'running');
CREATE INDEX runs_schedule ON runs (schedule, created_at, id)
    WHERE schedule IS NOT NULL;
CREATE INDEX runs_created ON runs (created_at);
CREATE INDEX runs_ready ON runs (priority, not_before, created_at, id)
    WHERE status IN ('pending', 'waiting');
CREATE INDEX runs_running ON runs (executor, lease_until)
    WHERE status = 'running';
CREATE INDEX runs_running_queue ON runs (queue) WHERE status = 'running';
CREATE INDEX runs_started ON runs (queue, started_at)
    WHERE started_at IS NOT NULL;
CREATE INDEX runs_serial
    ON runs (serial_key, coalesce(scheduled_for, created_at), id)
    WHERE serial_key IS NOT NULL
      AND (status IN ('pending', 'waiting') OR status = 'running');
CREATE INDEX runs_serial_running ON runs (serial_key)
    WHERE serial_key IS NOT NULL AND status = 'running';
CREATE INDEX runs_schedule_active ON runs (schedule)
    WHERE schedule IS NOT NULL
      AND (status IN ('pending', 'waiting') OR status = 'running');
CREATE INDEX runs_deadline ON runs (schedule, deadline_at)
    WHERE deadline_at IS NOT NULL;
