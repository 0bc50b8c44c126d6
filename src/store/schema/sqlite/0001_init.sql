-- SPDX-License-Identifier: MIT
-- sked schema, version 1, SQLite dialect (the PostgreSQL dialect in
-- schema/pg/ has the same tables, columns and meanings).
--
-- Conventions: every instant is an INTEGER of microseconds since the Unix
-- epoch, UTC, in a column named *_at, *_for, *_before or *_until; every
-- duration is an INTEGER of microseconds named *_us; NULL means "not set".
-- Enumerations are stored as the lower-case words the API uses, checked.
-- JSON values are TEXT holding a JSON object. Migrations are forward-only
-- and record their version in meta (the store does that, not the script).

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- SPEC 1, 2, 3 and 6: one row per schedule, keyed by its unique name.
CREATE TABLE schedules (
    name                 TEXT PRIMARY KEY,
    workflow             TEXT NOT NULL,
    kind                 TEXT NOT NULL CHECK (kind IN ('cron', 'every', 'at')),
    cron                 TEXT,
    every_us             INTEGER,
    anchor_at            INTEGER,
    at                   INTEGER,
    timezone             TEXT NOT NULL DEFAULT 'UTC',
    dst                  TEXT NOT NULL DEFAULT 'once'
                         CHECK (dst IN ('once', 'cadence')),
    context              TEXT NOT NULL DEFAULT '{}',
    catchup              TEXT NOT NULL DEFAULT 'latest'
                         CHECK (catchup IN ('latest', 'skip', 'all')),
    catchup_max          INTEGER NOT NULL DEFAULT 10,
    catchup_window_us    INTEGER NOT NULL DEFAULT 86400000000,
    overlap              TEXT NOT NULL DEFAULT 'allow'
                         CHECK (overlap IN ('allow', 'skip', 'buffer_one',
                                            'buffer_all', 'cancel_other')),
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
                         CHECK (status IN ('active', 'paused', 'disabled',
                                           'done')),
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
CREATE INDEX schedules_due ON schedules (status, next_fire_at);
CREATE INDEX schedules_workflow ON schedules (workflow);
CREATE INDEX schedules_source ON schedules (source);

-- SPEC 3.1 and 4.1: the id is the idempotency key. There is no foreign key
-- to schedules: a run outlives the schedule that created it.
CREATE TABLE runs (
    id               TEXT PRIMARY KEY,
    workflow         TEXT NOT NULL,
    workflow_version TEXT,
    status           TEXT NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'running', 'waiting',
                                       'completed', 'failed', 'cancelled')),
    trigger_kind     TEXT NOT NULL
                     CHECK (trigger_kind IN ('cron', 'catchup', 'backfill',
                                             'manual', 'api')),
    schedule         TEXT,
    scheduled_for    INTEGER,
    queue            TEXT NOT NULL DEFAULT 'default',
    priority         INTEGER NOT NULL DEFAULT 0,
    concurrency_key  TEXT,
    not_before       INTEGER NOT NULL,
    executor         TEXT,
    lease_until      INTEGER,
    context          TEXT NOT NULL DEFAULT '{}',
    output           TEXT,
    error            TEXT,
    error_code       TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    started_at       INTEGER,
    finished_at      INTEGER,
    updated_at       INTEGER NOT NULL
);
-- SPEC 3.4: at most one active run per concurrency key, across servers.
CREATE UNIQUE INDEX runs_active_key ON runs (concurrency_key)
    WHERE concurrency_key IS NOT NULL
      AND status IN ('pending', 'running', 'waiting');
-- SPEC 4.2: claim order within a queue.
CREATE INDEX runs_claim ON runs (queue, priority, not_before, created_at)
    WHERE status IN ('pending', 'waiting');
CREATE INDEX runs_lease ON runs (lease_until) WHERE status = 'running';
CREATE INDEX runs_schedule ON runs (schedule, scheduled_for);
CREATE INDEX runs_created ON runs (created_at);

-- One row per attempt of a step.
CREATE TABLE steps (
    run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step        TEXT NOT NULL,
    attempt     INTEGER NOT NULL CHECK (attempt >= 1),
    status      TEXT NOT NULL
                CHECK (status IN ('running', 'completed', 'failed',
                                  'cancelled')),
    output      TEXT,
    error       TEXT,
    error_code  TEXT,
    exit_code   INTEGER,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    PRIMARY KEY (run_id, step, attempt)
);

-- SPEC 5: ids only grow (AUTOINCREMENT never reuses one after a prune), so
-- a reader's cursor stays valid.
CREATE TABLE events (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    type    TEXT NOT NULL,
    subject TEXT NOT NULL,
    payload TEXT NOT NULL DEFAULT '{}',
    at      INTEGER NOT NULL
);
CREATE INDEX events_at ON events (at);

-- SPEC 4.2 and 10: NULL limits mean "unlimited".
CREATE TABLE queues (
    name               TEXT PRIMARY KEY,
    concurrency        INTEGER,
    worker_concurrency INTEGER,
    rate_limit         INTEGER,
    rate_period_us     INTEGER,
    source             TEXT NOT NULL DEFAULT 'code'
                       CHECK (source IN ('api', 'code')),
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
);

-- SPEC 4.2: the versions of each workflow that some server registered.
CREATE TABLE workflow_versions (
    workflow      TEXT NOT NULL,
    version       TEXT NOT NULL,
    definition    TEXT NOT NULL DEFAULT '{}',
    registered_at INTEGER NOT NULL,
    PRIMARY KEY (workflow, version)
);
