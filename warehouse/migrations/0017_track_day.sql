-- Day summaries of each device's track (warehouse/track_days.py, fleet/track_summary.py):
-- one row per device and closed UTC day, written by `fleet summarise-days` (and by a read that finds
-- one missing), deleted by the positions sink when a late fix (0x0704 backlog) lands in that day.
-- A month's track or stop log reads 30 of these instead of every fix. The kept fixes are aligned
-- columnar arrays (epoch ms; real columns as PostgreSQL prints them); park_speed_kmh / radius_m /
-- resolution_s are the settings they were made with (another setting: recomputed on read).
-- car_id / enterprise_id: the day's single value, NULL when its fixes name several (read from gps then).
-- depends: 0012_open_platform

CREATE TABLE track_day (
    device_id       bigint NOT NULL,
    day             date NOT NULL,
    car_id          bigint,
    enterprise_id   bigint,
    points          integer NOT NULL,
    first_at        timestamptz,
    last_at         timestamptz,
    mileage_km      double precision,
    park_speed_kmh  real NOT NULL,
    radius_m        real NOT NULL,
    resolution_s    integer NOT NULL,
    times           bigint[] NOT NULL,
    lngs            double precision[] NOT NULL,
    lats            double precision[] NOT NULL,
    speeds          double precision[] NOT NULL,
    directions      integer[] NOT NULL,
    altitudes       double precision[] NOT NULL,
    mileages        double precision[] NOT NULL,
    fuels           double precision[] NOT NULL,
    alarms          bigint[] NOT NULL,
    statuses        bigint[] NOT NULL,
    computed_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (device_id, day)
);

-- The position fields of a last-positions row (POST /api/gps/last.json: time .. status, contract A) as
-- JSON array text, kept with the row by PostgreSQL itself (a generated column: always the row's
-- values), so reading 10,000 vehicles formats three fields a row instead of thirteen
-- (warehouse/queries/positions.py; docs/performance.md "Track and last positions").
ALTER TABLE device_last ADD COLUMN reply_json text GENERATED ALWAYS AS (
    round(extract(epoch FROM (fix_at - timestamptz '1970-01-01 00:00:00+00')) * 1000)::bigint::text || ',' ||
    lng::text || ',' || lat::text || ',' || coalesce(speed_kmh::text, 'null') || ',' ||
    coalesce(direction_deg::text, 'null') || ',' || coalesce(altitude_m::text, 'null') || ',' ||
    coalesce(mileage_km::text, 'null') || ',' || coalesce(fuel_l::text, 'null') || ',' ||
    (alarm_flags & 4294967295)::text || ',' || status_flags::text) STORED;
