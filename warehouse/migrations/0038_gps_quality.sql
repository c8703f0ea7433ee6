-- A position's plausibility (docs/architecture.md "Position quality"): implausible fixes are stored, never dropped, with
-- the reasons as a bitmask the track, the reports' drift figures and the regulator KPIs read:
--   1  past     fix time more than FLEET_STREAMS_MAX_PAST_H before the gateway received it
--              (e.g. a terminal whose clock writes the century as the year: 2020 for 2026)
--   2  future   fix time more than FLEET_STREAMS_MAX_FUTURE_S after the gateway received it
--   4  teleport implied speed from the device's last plausible fix above FLEET_STREAMS_MAX_IMPLIED_SPEED_KMH
-- 0 is a plausible fix. A flagged fix never moves device_last and adds no mileage (streams/plausibility.py).
-- depends: 0037_message_log_covering_index

ALTER TABLE gps ADD COLUMN quality smallint NOT NULL DEFAULT 0;

-- The track counts the flagged fixes it leaves out of a range: a small partial index answers that
-- count without reading a device's every fix of the range (flagged fixes are rare).
CREATE INDEX gps_flagged_idx ON gps (device_id, fix_at) WHERE quality <> 0;
