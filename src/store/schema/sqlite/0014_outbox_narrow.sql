-- SPDX-License-Identifier: MIT
-- sked schema, version 14, SQLite dialect: a narrower outbox.
--
-- 1. The deliveries of a transaction are queued as one row.
--
-- The transaction that writes an event wrote a row of notify_deliveries
-- for each delivery, with an entry in each of its indexes: for a failed
-- run, as much again as the run's own rows. Now it writes one row of
-- notify_queue, the JSON array of its deliveries ([event_id, notifier,
-- okey, unscheduled, created_at, deadline_at] each), and the next
-- transaction that claims deliveries, lists them or prunes them makes
-- each its row of notify_deliveries (oldest queue row first, each in its
-- order) and deletes the queue rows, in the same transaction: a
-- delivery is never lost between the two, and never made twice.
CREATE TABLE notify_queue (
    id         INTEGER PRIMARY KEY,
    deliveries TEXT NOT NULL
);
--
-- 2. A delivery names its event instead of copying it.
--
-- A delivery no longer holds a copy of its event: the event's row is
-- read, by the delivery's event_id, when the delivery is claimed and
-- when the notify log shows it (an events row that a delivery names is
-- kept by the events' pruning until the delivery is pruned). The copy
-- was most of the row, and written in the transaction of the event it
-- follows: the bytes that transaction wrote grew by half for a notified
-- run. event is now NULL for the deliveries written from here on; those
-- written before keep their copy, sent as it is. The event as sent has
-- the schedule the delivery was ordered by: okey, unless unscheduled
-- is 1 (the event has no schedule: okey is its subject, and the event
-- is sent with "schedule": null).
--
-- The table is rebuilt to drop the NOT NULL of event, its rows and ids
-- kept, AUTOINCREMENT's counter carried over so that no id is given
-- twice, and the indexes made again as they were.
CREATE TABLE notify_deliveries_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id        INTEGER NOT NULL,
    notifier        TEXT NOT NULL,
    okey            TEXT NOT NULL,
    unscheduled     INTEGER,
    event           TEXT,
    state           TEXT NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    deadline_at     INTEGER NOT NULL,
    lease_owner     TEXT,
    lease_until     INTEGER,
    last_error      TEXT,
    last_status     INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    delivered_at    INTEGER,
    UNIQUE (event_id, notifier)
);
INSERT INTO notify_deliveries_new (id, event_id, notifier, okey, event,
    state, attempts, next_attempt_at, deadline_at, lease_owner, lease_until,
    last_error, last_status, created_at, updated_at, delivered_at)
SELECT id, event_id, notifier, okey, event, state, attempts,
    next_attempt_at, deadline_at, lease_owner, lease_until, last_error,
    last_status, created_at, updated_at, delivered_at
FROM notify_deliveries;
DELETE FROM sqlite_sequence WHERE name = 'notify_deliveries_new';
INSERT INTO sqlite_sequence (name, seq)
SELECT 'notify_deliveries_new', seq FROM sqlite_sequence
WHERE name = 'notify_deliveries';
DROP TABLE notify_deliveries;
ALTER TABLE notify_deliveries_new RENAME TO notify_deliveries;
-- The claim: due pending rows, and the head of each (notifier, okey).
CREATE INDEX notify_deliveries_due ON notify_deliveries (next_attempt_at)
    WHERE state = 'pending';
CREATE INDEX notify_deliveries_order
    ON notify_deliveries (notifier, okey, event_id) WHERE state = 'pending';
CREATE INDEX notify_deliveries_log ON notify_deliveries (notifier, id);
