-- SPDX-License-Identifier: MIT
-- sked schema, version 4, SQLite dialect: indexes no query reads.
-- schema/pg/0004_fire_rate.sql drops the same.
--
-- schedules_due (status, next_fire_at): the scheduler keeps the next
--   occurrences in memory (src/sched/loop.c) and reads schedules by name
--   or by updated_at; every firing moved two entries of this index.
DROP INDEX schedules_due;
