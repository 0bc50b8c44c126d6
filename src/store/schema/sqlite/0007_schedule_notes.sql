-- SPDX-License-Identifier: MIT
-- sked schema, version 7, SQLite dialect: schedules have notes.
--
-- Free text for the people who run a schedule (at most 4 KiB, checked by
-- the model): set through the CLI's --notes, the API's "notes" and the
-- workflows file's notes:. Schedules written before this version have
-- none.
ALTER TABLE schedules ADD COLUMN notes TEXT;
