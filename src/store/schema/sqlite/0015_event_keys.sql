-- SPDX-License-Identifier: MIT
-- sked schema, version 15, SQLite dialect: nothing changes. Version 15 of
-- PostgreSQL's dialect writes fewer keys into the index of its event
-- pages; SQLite's events are rows, with an index by type and one by
-- subject (0008_event_filters.sql), which stay as they are.
SELECT 1;
