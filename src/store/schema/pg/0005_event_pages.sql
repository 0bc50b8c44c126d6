-- SPDX-License-Identifier: MIT
-- sked schema, version 5, PostgreSQL dialect: the event log in pages.
--
-- A run executed writes four events (run.started, step.started,
-- step.completed, run.completed): as rows, that was four heap tuples and
-- eight index entries per run, more than its run and step rows together,
-- and the largest share of the server's time. The events a transaction
-- writes are now stored as pages of up to 64, one row each:
--
--   - a page's first event has the page's id, and the next ones follow it
--     (id + 1, id + 2, ...); new pages take their id from event_blocks,
--     which counts in steps of 64, so ids stay unique and increasing, and
--     the ids a page leaves unused are never taken;
--   - last_at is the time of its newest event, by which retention drops
--     whole pages;
--   - toast_tuple_target keeps a page of small events in its row, where
--     PostgreSQL would otherwise compress any row over 2 kB.
--
-- The view events shows one row per event, as the table did, for the
-- people and the scripts that read it with SQL. sked reads event_pages
-- (src/store/pg_rows.c). The events already stored become pages of one
-- event that keep their ids; the first new page starts above them.
CREATE SEQUENCE event_blocks AS BIGINT INCREMENT BY 64 MINVALUE 64;

CREATE TABLE event_pages (
    id       BIGINT PRIMARY KEY,
    types    TEXT[] NOT NULL,
    subjects TEXT[] NOT NULL,
    payloads TEXT[] NOT NULL,
    ats      BIGINT[] NOT NULL,
    last_at  BIGINT NOT NULL,
    CHECK (cardinality(types) BETWEEN 1 AND 64
           AND cardinality(subjects) = cardinality(types)
           AND cardinality(payloads) = cardinality(types)
           AND cardinality(ats) = cardinality(types))
) WITH (toast_tuple_target = 8160);
CREATE INDEX event_pages_last_at ON event_pages (last_at);

INSERT INTO event_pages (id, types, subjects, payloads, ats, last_at)
SELECT id, ARRAY[type], ARRAY[subject], ARRAY[payload], ARRAY[at], at
FROM events;
SELECT setval('event_blocks', (coalesce(max(id), 0) / 64 + 1) * 64, false)
FROM events;
DROP TABLE events;

CREATE VIEW events (id, type, subject, payload, at) AS
SELECT p.id + e.k - 1, e.type, e.subject, e.payload, e.at
FROM event_pages p
CROSS JOIN LATERAL unnest(p.types, p.subjects, p.payloads, p.ats)
    WITH ORDINALITY AS e(type, subject, payload, at, k);
