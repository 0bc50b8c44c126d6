-- SPDX-License-Identifier: MIT
-- sked schema, version 4, PostgreSQL dialect: the indexes as
-- schema/sqlite/0004_fire_rate.sql leaves them.
--
-- runs_schedule: now (schedule, created_at, id), the order in which a
--   schedule's runs are listed (newest first), so that listing them walks
--   the index instead of every run; (schedule, scheduled_for) served no
--   query. Runs of no schedule (started through the API) are left out:
--   nothing looks them up by schedule.
--
-- schedules_due (status, next_fire_at): dropped. The scheduler keeps the
--   next occurrences in memory (src/sched/loop.c) and reads schedules by
--   name or by updated_at; every firing moved two entries of this index,
--   and an indexed column that changes rules out a heap-only (HOT) update.
DROP INDEX schedules_due;
DROP INDEX runs_schedule;
CREATE INDEX runs_schedule ON runs (schedule, created_at, id)
    WHERE schedule IS NOT NULL;
