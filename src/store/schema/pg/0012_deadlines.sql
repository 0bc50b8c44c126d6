-- SPDX-License-Identifier: MIT
-- sked schema, version 12, PostgreSQL dialect: deadlines and heartbeat
-- schedules; the columns and their meanings are schema/sqlite's
-- 0012_deadlines.sql. A heartbeat run has trigger 'heartbeat': the check
-- on trigger_kind (named by PostgreSQL after its column) is replaced.
ALTER TABLE schedules ADD COLUMN deadline_us BIGINT NOT NULL DEFAULT 0;
ALTER TABLE schedules ADD COLUMN start_deadline_us BIGINT NOT NULL DEFAULT 0;
ALTER TABLE schedules ADD COLUMN heartbeat INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedules ADD COLUMN deadline_check_at BIGINT;
ALTER TABLE schedules ADD COLUMN deadlines_missed BIGINT NOT NULL DEFAULT 0;
ALTER TABLE schedules ADD COLUMN last_deadline_missed_at BIGINT;

ALTER TABLE runs DROP CONSTRAINT runs_trigger_kind_check;
ALTER TABLE runs ADD CONSTRAINT runs_trigger_kind_check
    CHECK (trigger_kind IN ('cron', 'catchup', 'backfill', 'manual', 'api',
                            'heartbeat'));
ALTER TABLE runs ADD COLUMN deadline_at BIGINT;
ALTER TABLE runs ADD COLUMN deadline_missed TEXT;
CREATE INDEX runs_deadline ON runs (schedule, deadline_at)
    WHERE deadline_at IS NOT NULL;
