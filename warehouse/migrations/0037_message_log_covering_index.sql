-- The message log screens (upstreamMessage, originalMessage: a vehicle's frames in a time range, with
-- the total) count the vehicle's rows of the range. With (car_id, time) alone that count read every
-- heap page holding one of them: the terminals' frames interleave, so a vehicle's day of frames sits
-- on as many pages as it has frames (13,473 pages, 105 MB, for one car's day at `fleet up`'s 200
-- terminals every 5 s), seconds when not cached. The same index carrying the other columns the
-- screens' WHERE reads (direction, the tenant enterprise_id) answers the count and the page from the
-- index alone (index-only scan; the heap only for pages not yet marked all-visible by autovacuum).
-- docs/performance.md "Message log" has the figures and the command.
-- depends: 0035_token_endpoint_rate

DROP INDEX IF EXISTS message_log_car_time_idx;
CREATE INDEX message_log_car_time_idx ON message_log (car_id, time) INCLUDE (direction, enterprise_id);

-- Index-only needs the pages marked all-visible: the day partitions vacuum after each 1 % of growth
-- (warehouse/partitions.py creates new days so); the existing ones get the same.
DO $$
DECLARE part regclass;
BEGIN
    FOR part IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'message_log'::regclass LOOP
        EXECUTE format('ALTER TABLE %s SET (autovacuum_vacuum_insert_scale_factor = 0.01)', part);
    END LOOP;
END $$;
