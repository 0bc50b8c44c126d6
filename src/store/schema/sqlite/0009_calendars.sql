-- SPDX-License-Identifier: MIT
-- sked schema, version 9, SQLite dialect: calendars, rrule schedules and
-- calendar-day intervals.
--
-- A calendar is a named set of days (docs/calendars.md). Its definition
-- (dates, rules, includes, an iCalendar file's text, the observed rule,
-- the business weekdays) is kept as the API's JSON object, which the
-- model reads and checks: the columns beside it are what a query needs
-- without reading the definition. A calendar of a workflows file is
-- source 'code' with its app, as schedules are (version 6).
CREATE TABLE calendars (
    name       TEXT PRIMARY KEY,
    definition TEXT NOT NULL,
    source     TEXT NOT NULL DEFAULT 'api',
    app        TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- Schedules given by an RFC 5545 rule (kind 'rrule': the rule's content
-- lines, as written), and intervals counted in calendar days (1: the
-- anchor's local time every N days, across DST; 0 or NULL: a duration).
-- The kinds' CHECK grows 'rrule', and the DST policy's takes the
-- canonical names of the DST matrix (sked_dst_name): once, cadence,
-- shift,last, shift,both, skip,first, skip,last, skip,both; as OR chains,
-- not IN, for the reason version 4 gives. SQLite cannot alter a CHECK, so
-- schedules is rebuilt with its rows in the same column order, as
-- version 4 did (nothing references it), and its indexes made again.
CREATE TABLE schedules_new (
    name                 TEXT PRIMARY KEY,
    workflow             TEXT NOT NULL,
    kind                 TEXT NOT NULL
                         CHECK (kind = 'cron' OR kind = 'every'
                                OR kind = 'at' OR kind = 'rrule'),
    cron                 TEXT,
    every_us             INTEGER,
    anchor_at            INTEGER,
    at                   INTEGER,
    timezone             TEXT NOT NULL DEFAULT 'UTC',
    dst                  TEXT NOT NULL DEFAULT 'once'
                         CHECK (dst = 'once' OR dst = 'cadence'
                                OR dst = 'shift,last' OR dst = 'shift,both'
                                OR dst = 'skip,first' OR dst = 'skip,last'
                                OR dst = 'skip,both'),
    context              TEXT NOT NULL DEFAULT '{}',
    catchup              TEXT NOT NULL DEFAULT 'latest'
                         CHECK (catchup = 'latest' OR catchup = 'skip'
                                OR catchup = 'all'),
    catchup_max          INTEGER NOT NULL DEFAULT 10,
    catchup_window_us    INTEGER NOT NULL DEFAULT 86400000000,
    overlap              TEXT NOT NULL DEFAULT 'allow'
                         CHECK (overlap = 'allow' OR overlap = 'skip'
                                OR overlap = 'buffer_one'
                                OR overlap = 'buffer_all'
                                OR overlap = 'cancel_other'),
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
                         CHECK (status = 'active' OR status = 'paused'
                                OR status = 'disabled' OR status = 'done'),
    source               TEXT NOT NULL DEFAULT 'api'
                         CHECK (source IN ('api', 'code')),
    next_fire_at         INTEGER,
    last_fired_at        INTEGER,
    last_error           TEXT,
    runs_created         INTEGER NOT NULL DEFAULT 0,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    app                  TEXT,
    notes                TEXT,
    rrule                TEXT,
    calendar_days        INTEGER
);
INSERT INTO schedules_new SELECT name, workflow, kind, cron, every_us,
    anchor_at, at, timezone, dst, context, catchup, catchup_max,
    catchup_window_us, overlap, priority, queue, jitter_us,
    automatic_backfill, start_at, end_at, max_runs, pause_after_failures,
    description, status, source, next_fire_at, last_fired_at, last_error,
    runs_created, consecutive_failures, created_at, updated_at, app, notes,
    NULL, NULL
    FROM schedules;
DROP TABLE schedules;
ALTER TABLE schedules_new RENAME TO schedules;
CREATE INDEX schedules_workflow ON schedules (workflow);
CREATE INDEX schedules_source ON schedules (source);
CREATE INDEX schedules_updated ON schedules (updated_at);
CREATE INDEX schedules_app ON schedules (app, name)
    WHERE app IS NOT NULL;
