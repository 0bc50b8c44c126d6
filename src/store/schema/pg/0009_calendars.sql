-- SPDX-License-Identifier: MIT
-- sked schema, version 9, PostgreSQL dialect: calendars, rrule schedules
-- and calendar-day intervals.
--
-- A calendar is a named set of days (docs/calendars.md). Its definition
-- (dates, rules, includes, an iCalendar file's text, the observed rule,
-- the business weekdays) is kept as the API's JSON object, which the
-- model reads and checks: the columns beside it are what a query needs
-- without reading the definition. A calendar of a workflows file is
-- source 'code' with its app, as schedules are (version 6).
CREATE TABLE calendars (
    name       TEXT COLLATE "C" PRIMARY KEY,
    definition TEXT NOT NULL,
    source     TEXT NOT NULL DEFAULT 'api',
    app        TEXT COLLATE "C",
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

-- Schedules given by an RFC 5545 rule (kind 'rrule': the rule's content
-- lines, as written), and intervals counted in calendar days (1: the
-- anchor's local time every N days, across DST; 0 or NULL: a duration).
-- The kinds' CHECK grows 'rrule', and the DST policy's takes the
-- canonical names of the DST matrix (sked_dst_name).
ALTER TABLE schedules ADD COLUMN rrule TEXT;
ALTER TABLE schedules ADD COLUMN calendar_days INTEGER;
ALTER TABLE schedules DROP CONSTRAINT schedules_kind_check;
ALTER TABLE schedules ADD CONSTRAINT schedules_kind_check
    CHECK (kind IN ('cron', 'every', 'at', 'rrule'));
ALTER TABLE schedules DROP CONSTRAINT schedules_dst_check;
ALTER TABLE schedules ADD CONSTRAINT schedules_dst_check
    CHECK (dst IN ('once', 'cadence', 'shift,last', 'shift,both',
                   'skip,first', 'skip,last', 'skip,both'));
