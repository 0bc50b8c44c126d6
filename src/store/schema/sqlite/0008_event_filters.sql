-- SPDX-License-Identifier: MIT
-- sked schema, version 8, SQLite dialect: the event log read by type and
-- by subject.
--
-- GET /api/v1/events?type=...&subject=... lists the events of some types,
-- of one subject (a schedule's name or a run's id), or both, after an
-- id. Each index ends with the id, so "the events of X after id N" is one
-- range of an index, read in order: the events of a schedule or a run by
-- subject, those of a few types by type (one range per type).
CREATE INDEX events_subject ON events (subject, id);
CREATE INDEX events_type ON events (type, id);
