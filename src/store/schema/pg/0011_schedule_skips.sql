-- SPDX-License-Identifier: MIT
-- sked schema, version 11, PostgreSQL dialect: occurrences skipped ahead of time.
--
-- One row per occurrence of a schedule dropped before it fires (sked
-- schedule skip): the schedule's name, the occurrence (the instant of its
-- time spec, in microseconds: the run id's instant), who skipped it and
-- why (NULL: no reason given), and when. The firing decides a skipped
-- occurrence as missed with reason "skipped". Rows go with their
-- schedule (ON DELETE CASCADE).
CREATE TABLE schedule_skips (
    schedule    TEXT NOT NULL REFERENCES schedules (name) ON DELETE CASCADE,
    occurrence  BIGINT NOT NULL,
    actor       TEXT NOT NULL,
    reason      TEXT,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (schedule, occurrence)
);
