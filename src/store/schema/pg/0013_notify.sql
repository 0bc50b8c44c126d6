-- SPDX-License-Identifier: MIT
-- sked schema, version 13, PostgreSQL dialect: notifiers and their outbox.
--
-- A notifier (docs/notifications.md) says where chosen events go: its
-- kind (webhook, command, email), the kind's settings as a JSON object
-- (never a secret: only where to read it, secret_file or secret_env),
-- the event types it wants (a JSON array), the schedules (a JSON array
-- of names or globs; NULL: every schedule) and how long a delivery is
-- retried (retry_for_us).
--
-- notify_deliveries is the outbox: one row per (event, notifier),
-- written in the transaction that writes the event, so a committed event
-- is never without its deliveries. It holds the event as sent (it
-- outlives the events' retention), the order key (the event's schedule,
-- else its subject: deliveries of one key go out in event order), and
-- the state: pending, delivered or failed, with the attempts, the next
-- attempt's time, the lease of the server delivering it, and what the
-- last attempt said. Instants in microseconds.
CREATE TABLE notifiers (
    name          TEXT PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('webhook', 'command', 'email')),
    config        TEXT NOT NULL,
    events        TEXT NOT NULL,
    schedules     TEXT,
    retry_for_us  BIGINT NOT NULL,
    source        TEXT NOT NULL,
    app           TEXT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

CREATE TABLE notify_deliveries (
    id              BIGSERIAL PRIMARY KEY,
    event_id        BIGINT NOT NULL,
    notifier        TEXT NOT NULL,
    okey            TEXT NOT NULL,
    event           TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    deadline_at     BIGINT NOT NULL,
    lease_owner     TEXT,
    lease_until     BIGINT,
    last_error      TEXT,
    last_status     INTEGER,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    delivered_at    BIGINT,
    UNIQUE (event_id, notifier)
);
-- The claim: due pending rows, and the head of each (notifier, okey).
CREATE INDEX notify_deliveries_due ON notify_deliveries (next_attempt_at)
    WHERE state = 'pending';
CREATE INDEX notify_deliveries_order
    ON notify_deliveries (notifier, okey, event_id) WHERE state = 'pending';
CREATE INDEX notify_deliveries_log ON notify_deliveries (notifier, id);
