-- SPDX-License-Identifier: MIT
-- sked schema, version 2, SQLite dialect: what the scheduler needs.
--
-- runs.serial_key: runs that share it run one at a time, in the order of
-- scheduled_for, and none is ever dropped for it (unlike concurrency_key,
-- whose unique index refuses a second active run). Every run of a
-- schedule whose overlap is not "allow" carries "schedule:{name}": the
-- buffered runs of buffer_one and buffer_all, and backfilled runs (SPEC
-- 3.5: backfill never drops, and its runs run one at a time).
ALTER TABLE runs ADD COLUMN serial_key TEXT;
CREATE INDEX runs_serial ON runs (serial_key, scheduled_for)
    WHERE serial_key IS NOT NULL
      AND status IN ('pending', 'running', 'waiting');
-- The overlap policies count a schedule's active runs.
CREATE INDEX runs_schedule_active ON runs (schedule)
    WHERE status IN ('pending', 'running', 'waiting');
-- The scheduler rereads the schedules changed since its last look.
CREATE INDEX schedules_updated ON schedules (updated_at);
