-- SPDX-License-Identifier: MIT
-- sked schema, version 8, PostgreSQL dialect: the event log read by type
-- and by subject.
--
-- GET /api/v1/events?type=...&subject=... lists the events of some types,
-- of one subject (a schedule's name or a run's id), or both, after an
-- id. Events are stored in pages (0005_run_rate.sql), so the index is on
-- the pages: a GIN index of the keys of each page's events, one key per
-- event for its type ('t' 0x1f type), for its subject ('s' 0x1f subject)
-- and for both ('p' 0x1f type 0x1f subject). A page that holds one of a
-- filter's keys (event_filter_keys) holds at least one event it matches,
-- so a page of N events needs at most N + 1 pages (the first may hold
-- only older ones), found by the index without reading the others.
-- Types are sked's own names and never hold the byte 0x1f.
CREATE FUNCTION event_page_keys(types TEXT[], subjects TEXT[])
RETURNS TEXT[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
SELECT array_agg(k)
FROM unnest(types, subjects) AS e(t, s),
     LATERAL (VALUES ('t' || chr(31) || t), ('s' || chr(31) || s),
                     ('p' || chr(31) || t || chr(31) || s)) AS v(k)
$$;

-- The keys a page must hold one of to hold an event of one of TYPES
-- (none: any) and of SUBJECT (NULL: any), as event_page_keys writes them.
CREATE FUNCTION event_filter_keys(types TEXT[], subject TEXT)
RETURNS TEXT[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
SELECT CASE
    WHEN subject IS NULL
        THEN ARRAY(SELECT 't' || chr(31) || t FROM unnest(types) AS t)
    WHEN cardinality(types) = 0 THEN ARRAY['s' || chr(31) || subject]
    ELSE ARRAY(SELECT 'p' || chr(31) || t || chr(31) || subject
               FROM unnest(types) AS t)
END
$$;

CREATE INDEX event_pages_keys ON event_pages
    USING gin (event_page_keys(types, subjects));
