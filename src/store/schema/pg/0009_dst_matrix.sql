-- SPDX-License-Identifier: MIT
-- sked schema, version 9, PostgreSQL dialect: a schedule's dst takes the
-- canonical names of the DST matrix (SPEC 12; sked_dst_name).
-- schema/sqlite/0009_dst_matrix.sql rebuilds its table for the same.
ALTER TABLE schedules DROP CONSTRAINT schedules_dst_check;
ALTER TABLE schedules ADD CONSTRAINT schedules_dst_check
    CHECK (dst IN ('once', 'cadence', 'shift,last', 'shift,both',
                   'skip,first', 'skip,last', 'skip,both'));
