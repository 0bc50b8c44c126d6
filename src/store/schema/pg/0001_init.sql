-- SPDX-License-Identifier: MIT
-- sked schema, version 1, PostgreSQL dialect: the same tables, columns,
-- constraints and indexes as schema/sqlite/0001_init.sql, in PostgreSQL's
-- types.
--
-- Conventions: every instant is a BIGINT of microseconds since the Unix
-- epoch, UTC, in a column named *_at, *_for, *_before or *_until; every
-- duration is a BIGINT of microseconds named *_us; NULL means "not set".
-- Small counts and limits are INTEGER. Enumerations are stored as the
-- lower-case words the API uses, checked.
--
-- JSON values are TEXT holding a JSON object, as in SQLite, not JSONB:
-- the store validates JSON before writing it, and TEXT gives back the
-- bytes it was given (JSONB reorders keys and drops spaces), so both
-- back-ends answer alike. A later migration can add JSONB columns or
-- expression indexes if queries into contexts or payloads are needed.
--
-- Names and ids compare bytewise (COLLATE "C"), as in SQLite, so list
-- order and pagination cursors do not depend on the server's locale.
-- Migrations are forward-only and record their version in meta (the
-- store does that, not the script).

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- SPEC 1, 2, 3 and 6: one row per schedule, keyed by its unique name.
CREATE TABLE schedules (
    name                 TEXT COLLATE "C" PRIMARY KEY,
    workflow             TEXT COLLATE "C" NOT NULL,
    kind                 TEXT NOT NULL CHECK (kind IN ('cron', 'every', 'at')),
    cron                 TEXT,
    every_us             BIGINT,
    anchor_at            BIGINT,
    at                   BIGINT,
    timezone             TEXT NOT NULL DEFAULT 'UTC',
    dst                  TEXT NOT NULL DEFAULT 'once'
                         CHECK (dst IN ('once', 'cadence')),
    context              TEXT NOT NULL DEFAULT '{}',
    catchup              TEXT NOT NULL DEFAULT 'latest'
                         CHECK (catchup IN ('latest', 'skip', 'all')),
    catchup_max          INTEGER NOT NULL DEFAULT 10,
    catchup_window_us    BIGINT NOT NULL DEFAULT 86400000000,
    overlap              TEXT NOT NULL DEFAULT 'allow'
                         CHECK (overlap IN ('allow', 'skip', 'buffer_one',
                                            'buffer_all', 'cancel_other')),
    priority             INTEGER NOT NULL DEFAULT 0,
    queue                TEXT,
    jitter_us            BIGINT NOT NULL DEFAULT 0,
    automatic_backfill   INTEGER NOT NULL DEFAULT 0,
    start_at             BIGINT,
    end_at               BIGINT,
    max_runs             BIGINT NOT NULL DEFAULT 0,
    pause_after_failures INTEGER NOT NULL DEFAULT 0,
    description          TEXT,
    status               TEXT NOT NULL DEFAULT 'active'
                         CHECK (status IN ('active', 'paused', 'disabled',
                                           'done')),
    source               TEXT NOT NULL DEFAULT 'api'
                         CHECK (source IN ('api', 'code')),
    next_fire_at         BIGINT,
    last_fired_at        BIGINT,
    last_error           TEXT,
    runs_created         BIGINT NOT NULL DEFAULT 0,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL
);
CREATE INDEX schedules_due ON schedules (status, next_fire_at);
CREATE INDEX schedules_workflow ON schedules (workflow);
CREATE INDEX schedules_source ON schedules (source);

-- SPEC 3.1 and 4.1: the id is the idempotency key. There is no foreign key
-- to schedules: a run outlives the schedule that created it.
CREATE TABLE runs (
    id               TEXT COLLATE "C" PRIMARY KEY,
    workflow         TEXT NOT NULL,
    workflow_version TEXT,
    status           TEXT NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'running', 'waiting',
                                       'completed', 'failed', 'cancelled')),
    trigger_kind     TEXT NOT NULL
                     CHECK (trigger_kind IN ('cron', 'catchup', 'backfill',
                                             'manual', 'api')),
    schedule         TEXT COLLATE "C",
    scheduled_for    BIGINT,
    queue            TEXT NOT NULL DEFAULT 'default',
    priority         INTEGER NOT NULL DEFAULT 0,
    concurrency_key  TEXT,
    not_before       BIGINT NOT NULL,
    executor         TEXT,
    lease_until      BIGINT,
    context          TEXT NOT NULL DEFAULT '{}',
    output           TEXT,
    error            TEXT,
    error_code       TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    created_at       BIGINT NOT NULL,
    started_at       BIGINT,
    finished_at      BIGINT,
    updated_at       BIGINT NOT NULL
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
    run_id      TEXT COLLATE "C" NOT NULL
                REFERENCES runs (id) ON DELETE CASCADE,
    step        TEXT NOT NULL,
    attempt     INTEGER NOT NULL CHECK (attempt >= 1),
    status      TEXT NOT NULL
                CHECK (status IN ('running', 'completed', 'failed',
                                  'cancelled')),
    output      TEXT,
    error       TEXT,
    error_code  TEXT,
    exit_code   INTEGER,
    started_at  BIGINT NOT NULL,
    finished_at BIGINT,
    PRIMARY KEY (run_id, step, attempt)
);

-- SPEC 5: ids come from an identity sequence, which never hands out a
-- number twice, so a reader's cursor stays valid after a prune. (Ids are
-- taken at insert and become visible at commit, so concurrent writers
-- can commit them out of order; a reader that must not miss one rereads
-- a short tail.)
CREATE TABLE events (
    id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    type    TEXT NOT NULL,
    subject TEXT NOT NULL,
    payload TEXT NOT NULL DEFAULT '{}',
    at      BIGINT NOT NULL
);
CREATE INDEX events_at ON events (at);

-- SPEC 4.2 and 10: NULL limits mean "unlimited".
CREATE TABLE queues (
    name               TEXT COLLATE "C" PRIMARY KEY,
    concurrency        INTEGER,
    worker_concurrency INTEGER,
    rate_limit         INTEGER,
    rate_period_us     BIGINT,
    source             TEXT NOT NULL DEFAULT 'code'
                       CHECK (source IN ('api', 'code')),
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL
);

-- SPEC 4.2: the versions of each workflow that some server registered.
CREATE TABLE workflow_versions (
    workflow      TEXT NOT NULL,
    version       TEXT NOT NULL,
    definition    TEXT NOT NULL DEFAULT '{}',
    registered_at BIGINT NOT NULL,
    PRIMARY KEY (workflow, version)
);
