-- SPDX-License-Identifier: MIT
-- sked schema, version 2, PostgreSQL dialect: what the scheduler needs
-- (the same columns and indexes as schema/sqlite/0002_scheduler.sql, and
-- the notification that wakes other servers at once).
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

-- SPEC 3.2: a change to a schedule's definition or status (a new
-- updated_at), its creation or its deletion notifies the channel
-- sked_schedules with the schedule's name, at commit. Firing moves only
-- the cursor, so it notifies nobody: every server decides from the row it
-- locks, not from what it was told.
CREATE FUNCTION sked_notify_schedule() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('sked_schedules', OLD.name);
        RETURN OLD;
    END IF;
    PERFORM pg_notify('sked_schedules', NEW.name);
    RETURN NEW;
END
$$;
CREATE TRIGGER schedules_notify_write
    AFTER INSERT OR DELETE ON schedules
    FOR EACH ROW EXECUTE FUNCTION sked_notify_schedule();
CREATE TRIGGER schedules_notify_change
    AFTER UPDATE ON schedules
    FOR EACH ROW WHEN (OLD.updated_at IS DISTINCT FROM NEW.updated_at)
    EXECUTE FUNCTION sked_notify_schedule();
