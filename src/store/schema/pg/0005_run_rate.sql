-- SPDX-License-Identifier: MIT
-- sked schema, version 5, PostgreSQL dialect: fewer rows and index entries
-- written per run executed (the execution rate).
--
-- 1. The event log in pages.
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

-- 2. One index of the running runs: (lease_until, queue).
--
-- Every claim and every finish writes an entry in each index of runs (an
-- update that changes an indexed column, as they do, cannot be a
-- heap-only update). The running runs had two: (executor, lease_until)
-- and (queue). Now one: every claim looks for expired leases, which it
-- now finds by a range of it, without reading the runs still leased; the
-- runs running in a queue (counted for a concurrency limit) are read
-- from its entries, with the run read only for those of the queue; an
-- executor's runs (its release at a stop, rare) are a walk of them all.
DROP INDEX runs_running;
DROP INDEX runs_running_queue;
CREATE INDEX runs_running ON runs (lease_until, queue)
    WHERE status = 'running';

-- 3. Rate limits count the starts of their queue in queue_starts.
--
-- runs_started (queue, started_at) held an entry for every run ever
-- started, written at its claim and again at its finish, for the few
-- queues with a rate limit. A claim now records a start only for a queue
-- with a rate limit, and the claims drop the starts older than the
-- queue's period. The starts still in a period are carried over.
DROP INDEX runs_started;
CREATE TABLE queue_starts (
    queue      TEXT COLLATE "C" NOT NULL,
    started_at BIGINT NOT NULL
);
CREATE INDEX queue_starts_at ON queue_starts (queue, started_at);
INSERT INTO queue_starts (queue, started_at)
SELECT r.queue, r.started_at
FROM runs r JOIN queues q ON q.name = r.queue COLLATE "C"
WHERE q.rate_limit IS NOT NULL AND q.rate_period_us IS NOT NULL
  AND r.started_at > (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
                     - q.rate_period_us;

-- 4. steps keeps no foreign key to runs.
--
-- Its check ran a query and took a row lock on the run for every step
-- row written. A step is only written by a transaction that already
-- holds its run's row lock (the executor's fence, a claim, a release),
-- and sked deletes no run, so the check found the run every time.
ALTER TABLE steps DROP CONSTRAINT steps_run_id_fkey;
