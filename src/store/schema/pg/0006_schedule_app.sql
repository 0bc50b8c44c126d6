-- SPDX-License-Identifier: MIT
-- sked schema, version 6, PostgreSQL dialect: code schedules have an
-- owner.
--
-- A code schedule (source 'code') belongs to the app that declared it:
-- the workflows file's `app:` key (by default its file name without
-- .yaml), or the app name a C program gives its engine. A sync creates,
-- updates and prunes only the schedules of its own owner, so two files
-- or programs sharing a database never delete each other's schedules.
-- Schedules of source 'api' have no owner. Code schedules written before
-- this version have none either: the first sync that declares one takes
-- it over, and no prune deletes one.
ALTER TABLE schedules ADD COLUMN app TEXT COLLATE "C";
CREATE INDEX schedules_app ON schedules (app, name)
    WHERE app IS NOT NULL;
