-- SPDX-License-Identifier: MIT
-- sked schema, version 14, PostgreSQL dialect: a narrower outbox.
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
    id         BIGSERIAL PRIMARY KEY,
    deliveries TEXT NOT NULL
);
--
-- 2. A delivery names its event instead of copying it.
--
-- A delivery no longer holds a copy of its event: the event is read
-- from its page of event_pages, by the delivery's event_id, when the
-- delivery is claimed and when the notify log shows it (a page that
-- holds an event a delivery names is kept by the events' pruning until
-- the delivery is pruned). The copy was most of the row, and written in
-- the transaction of the event it follows: the bytes that transaction
-- wrote, to the table and to the WAL, grew by half for a notified run.
-- event is now NULL for the deliveries written from here on; those
-- written before keep their copy, sent as it is. The event as sent has
-- the schedule the delivery was ordered by: okey, unless unscheduled is
-- true (the event has no schedule: okey is its subject, and the event
-- is sent with "schedule": null).
ALTER TABLE notify_deliveries ALTER COLUMN event DROP NOT NULL,
    ADD COLUMN unscheduled BOOLEAN;
