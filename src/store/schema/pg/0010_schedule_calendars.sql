-- SPDX-License-Identifier: MIT
-- sked schema, version 10, PostgreSQL dialect: schedules use calendars.
--
-- A schedule's exclude and only are the names of calendars (version 9),
-- joined by "," (names hold no comma), checked by the model and, when
-- written, against the calendars stored then; NULL: none. on_excluded
-- says where an excluded occurrence goes: skip, next_business_day or
-- previous_business_day. A run keeps the occurrence it was created for
-- (occurrence_at): its scheduled_for is when it fires, which differs for
-- an occurrence moved off an excluded day; NULL for runs no occurrence
-- made (manual and API runs).
ALTER TABLE schedules ADD COLUMN exclude_cals TEXT;
ALTER TABLE schedules ADD COLUMN only_cals TEXT;
ALTER TABLE schedules ADD COLUMN on_excluded TEXT NOT NULL DEFAULT 'skip'
    CHECK (on_excluded = 'skip' OR on_excluded = 'next_business_day'
           OR on_excluded = 'previous_business_day');
ALTER TABLE runs ADD COLUMN occurrence_at BIGINT;
