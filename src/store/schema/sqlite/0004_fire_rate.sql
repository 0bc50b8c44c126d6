-- SPDX-License-Identifier: MIT
-- sked schema, version 4, SQLite dialect: cheaper writes of runs and of
-- schedules' cursors (the firing rate). schema/pg/0004_fire_rate.sql drops
-- the same unused index; PostgreSQL needs nothing else.
--
-- runs_schedule: now (schedule, created_at, id), the order in which a
--   schedule's runs are listed (newest first), so that listing them walks
--   the index instead of every run; (schedule, scheduled_for) served no
--   query. Runs of no schedule (started through the API) are left out:
--   nothing looks them up by schedule.
--
-- schedules_due (status, next_fire_at): dropped. The scheduler keeps the
--   next occurrences in memory (src/sched/loop.c) and reads schedules by
--   name or by updated_at; every firing moved two entries of it.
--
-- A list of more than two constants after IN, in a CHECK constraint or in
-- a partial index's WHERE, makes SQLite build a temporary b-tree of the
-- list for every row it writes (a list of one or two is compared in
-- place). That was five b-trees built and freed per run inserted, and
-- more than half of the instructions of a firing. So:
--   - CHECK constraints with longer lists become OR chains. SQLite cannot
--     alter a CHECK constraint: schedules, runs and steps are rebuilt
--     with their rows, in the same column order. steps is copied to a
--     table referencing runs_new before runs is dropped, so that dropping
--     runs (an implicit DELETE when foreign keys are on) cascades to
--     nothing; renaming runs_new to runs renames the reference with it.
--   - The partial indexes over active runs say
--     "status IN ('pending', 'waiting') OR status = 'running'", and the
--     queries use the same words (SKED__SQLITE_ACTIVE in sqlite.h), which
--     is how SQLite's planner knows a partial index applies.
DROP INDEX schedules_due;

CREATE TABLE schedules_new (
    name                 TEXT PRIMARY KEY,
    workflow             TEXT NOT NULL,
    kind                 TEXT NOT NULL
                         CHECK (kind = 'cron' OR kind = 'every'
                                OR kind = 'at'),
    cron                 TEXT,
    every_us             INTEGER,
    anchor_at            INTEGER,
    at                   INTEGER,
    timezone             TEXT NOT NULL DEFAULT 'UTC',
    dst                  TEXT NOT NULL DEFAULT 'once'
                         CHECK (dst IN ('once', 'cadence')),
    context              TEXT NOT NULL DEFAULT '{}',
    catchup              TEXT NOT NULL DEFAULT 'latest'
                         CHECK (catchup = 'latest' OR catchup = 'skip'
                                OR catchup = 'all'),
    catchup_max          INTEGER NOT NULL DEFAULT 10,
    catchup_window_us    INTEGER NOT NULL DEFAULT 86400000000,
    overlap              TEXT NOT NULL DEFAULT 'allow'
                         CHECK (overlap = 'allow' OR overlap = 'skip'
                                OR overlap = 'buffer_one'
                                OR overlap = 'buffer_all'
                                OR overlap = 'cancel_other'),
    priority             INTEGER NOT NULL DEFAULT 0,
    queue                TEXT,
    jitter_us            INTEGER NOT NULL DEFAULT 0,
    automatic_backfill   INTEGER NOT NULL DEFAULT 0,
    start_at             INTEGER,
    end_at               INTEGER,
    max_runs             INTEGER NOT NULL DEFAULT 0,
    pause_after_failures INTEGER NOT NULL DEFAULT 0,
    description          TEXT,
    status               TEXT NOT NULL DEFAULT 'active'
                         CHECK (status = 'active' OR status = 'paused'
                                OR status = 'disabled' OR status = 'done'),
    source               TEXT NOT NULL DEFAULT 'api'
                         CHECK (source IN ('api', 'code')),
    next_fire_at         INTEGER,
    last_fired_at        INTEGER,
    last_error           TEXT,
    runs_created         INTEGER NOT NULL DEFAULT 0,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
);
INSERT INTO schedules_new SELECT name, workflow, kind, cron, every_us,
    anchor_at, at, timezone, dst, context, catchup, catchup_max,
    catchup_window_us, overlap, priority, queue, jitter_us,
    automatic_backfill, start_at, end_at, max_runs, pause_after_failures,
    description, status, source, next_fire_at, last_fired_at, last_error,
    runs_created, consecutive_failures, created_at, updated_at
    FROM schedules;
DROP TABLE schedules;
ALTER TABLE schedules_new RENAME TO schedules;
CREATE INDEX schedules_workflow ON schedules (workflow);
CREATE INDEX schedules_source ON schedules (source);
CREATE INDEX schedules_updated ON schedules (updated_at);

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
                               OR trigger_kind = 'api'),
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
    outcome             TEXT CHECK (outcome IN ('failed', 'cancelled'))
);
INSERT INTO runs_new SELECT id, workflow, workflow_version, status,
    trigger_kind, schedule, scheduled_for, queue, priority, concurrency_key,
    not_before, executor, lease_until, context, output, error, error_code,
    attempts, created_at, started_at, finished_at, updated_at, serial_key,
    cancel_requested_at, timeout_exceeded_at, outcome
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
