-- SPDX-License-Identifier: MIT
-- sked schema, version 3, PostgreSQL dialect: what execution needs (SPEC
-- 4; the store's side is src/store/store_run.h), with the same columns,
-- indexes and meanings as schema/sqlite/0003_execution.sql.
--
-- runs.cancel_requested_at: a cancel was asked (SPEC 4.3); the executor
--   holding the run, or the next to claim it, ends it.
-- runs.timeout_exceeded_at: the soft workflow timeout passed
--   (fail_workflow false).
-- runs.outcome: the run entered the failure path and ends with this
--   status ('failed' or 'cancelled') once its compensations ran.
ALTER TABLE runs ADD COLUMN cancel_requested_at BIGINT;
ALTER TABLE runs ADD COLUMN timeout_exceeded_at BIGINT;
ALTER TABLE runs ADD COLUMN outcome TEXT
    CHECK (outcome IN ('failed', 'cancelled'));

-- One row per attempt of a step or of its compensation (compensation 1).
-- Recreated: no earlier version wrote to it. truncated: bit 1 the output,
-- bit 2 stderr_text was cut at SKED_STEP_OUTPUT_MAX.
DROP TABLE steps;
CREATE TABLE steps (
    run_id       TEXT COLLATE "C" NOT NULL
                 REFERENCES runs (id) ON DELETE CASCADE,
    step         TEXT COLLATE "C" NOT NULL,
    compensation INTEGER NOT NULL DEFAULT 0 CHECK (compensation IN (0, 1)),
    attempt      INTEGER NOT NULL CHECK (attempt >= 1),
    status       TEXT NOT NULL
                 CHECK (status IN ('running', 'completed', 'failed',
                                   'cancelled')),
    output       TEXT,
    stderr_text  TEXT,
    truncated    INTEGER NOT NULL DEFAULT 0,
    error        TEXT,
    error_code   TEXT,
    exit_code    INTEGER,
    started_at   BIGINT NOT NULL,
    finished_at  BIGINT,
    PRIMARY KEY (run_id, step, compensation, attempt)
);

-- SPEC 4.2: the claim walks the ready runs of every queue in one order
-- (a queue's limits are checked as it goes), so the per-queue index of
-- 0001 gives way to one in claim order.
DROP INDEX runs_claim;
CREATE INDEX runs_ready ON runs (priority, not_before, created_at, id)
    WHERE status IN ('pending', 'waiting');
-- The running runs, few (at most the workers of every server): an
-- executor's (renewal, release), and those whose lease expired (a scan
-- of them all). Replaces 0001's runs_lease: one index less to write at
-- every claim and every finish.
DROP INDEX runs_lease;
CREATE INDEX runs_running ON runs (executor, lease_until)
    WHERE status = 'running';
-- Queue concurrency: the runs running in a queue, on every executor.
CREATE INDEX runs_running_queue ON runs (queue) WHERE status = 'running';
-- Queue rate limits: the runs of a queue started within a period (a run
-- enters it when it starts, not when it is created).
CREATE INDEX runs_started ON runs (queue, started_at)
    WHERE started_at IS NOT NULL;
-- Serial keys: the first active run of a key in its order (one seek), and
-- whether one of the key runs now. Replaces 0002's (serial_key,
-- scheduled_for), which could not answer the first without a scan.
DROP INDEX runs_serial;
CREATE INDEX runs_serial
    ON runs (serial_key, (coalesce(scheduled_for, created_at)), id)
    WHERE serial_key IS NOT NULL
      AND status IN ('pending', 'running', 'waiting');
CREATE INDEX runs_serial_running ON runs (serial_key)
    WHERE serial_key IS NOT NULL AND status = 'running';
-- The active runs of a schedule (0002), without the runs of no schedule,
-- which every claim and finish would otherwise write.
DROP INDEX runs_schedule_active;
CREATE INDEX runs_schedule_active ON runs (schedule)
    WHERE schedule IS NOT NULL
      AND status IN ('pending', 'running', 'waiting');
