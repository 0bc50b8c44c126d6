-- SPDX-License-Identifier: MIT
-- sked schema, version 15, PostgreSQL dialect: fewer keys in the index
-- of the event pages.
--
-- The GIN index of 0008_event_filters.sql held, for each event of a
-- page, three keys: its type, its subject, and the pair of both. The
-- pairs are nearly all new keys (a run's id with each of its events'
-- types), each a new entry of the index: writing them was about half of
-- PostgreSQL's time in a run's execution (its events are written in the
-- run's transactions), ten times what the types and subjects cost. Now a
-- page holds each of its types and subjects once, and a filter of types
-- and a subject finds the pages of the subject: the events of one run or
-- one schedule are few, and the query keeps those of the types.
DROP INDEX event_pages_keys;

CREATE OR REPLACE FUNCTION event_page_keys(types TEXT[], subjects TEXT[])
RETURNS TEXT[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
SELECT array_agg(DISTINCT k)
FROM unnest(types, subjects) AS e(t, s),
     LATERAL (VALUES ('t' || chr(31) || t), ('s' || chr(31) || s)) AS v(k)
$$;

-- The keys a page must hold one of to hold an event of one of TYPES
-- (none: any) and of SUBJECT (NULL: any), as event_page_keys writes them.
CREATE OR REPLACE FUNCTION event_filter_keys(types TEXT[], subject TEXT)
RETURNS TEXT[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT CASE
    WHEN subject IS NULL
        THEN ARRAY(SELECT 't' || chr(31) || t FROM unnest(types) AS t)
    ELSE ARRAY['s' || chr(31) || subject]
END
$$;

CREATE INDEX event_pages_keys ON event_pages
    USING gin (event_page_keys(types, subjects));
