-- SPDX-License-Identifier: MIT
-- sked schema, version 9, PostgreSQL dialect: calendars.
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
