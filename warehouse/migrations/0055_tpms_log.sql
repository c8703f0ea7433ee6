-- tpms_log_view: the tyre readings of a vehicle's terminals for the TPMS log (platform-spec §2 Logs "tpms"),
-- one row per tyre of a fix, read from what the position sink already stores in gps.extras (no second copy):
--   item 102 (0x66, Jiangsu 2017 table 4-18, extras "tpms_alarm"): one row per tyre event with its
--     position (the terminal's numbering, from 0), pressure in kPa, temperature in °C, battery in %
--     and the event's type WORD (bit 0 the timed report, 1-7 the tyre alarms; named by tpms_<bit>);
--   item 5 (0x05, JT/T 808-2019, extras "tyre_pressure_raw"): one row per wheel with data, position from 0
--     (front, left to right), its byte as sent in pressure_raw: the standard's unit (Pa in one byte) is
--     not what devices send, so no unit is claimed for it (protocols/jt808/extras/x05_tyre_pressure.py).
-- A value of the wrong JSON type reads as NULL, never as a cast error. Read like gps_log_view: a query names
-- the vehicle and the time range (EntitySpec.window), so the plan is car -> devices -> gps primary key.
-- depends: 0054_exchange_notice_view

CREATE OR REPLACE VIEW tpms_log_view AS
SELECT g.device_id, g.fix_at, c.id AS car_id, g.enterprise_id, c.plate_number, d.phone AS device_phone,
       t.item, t.tyre, t.pressure_kpa, t.pressure_raw, t.temperature_c, t.battery_pct, t.alarm_type,
       g.lng, g.lat, g.speed_kmh
FROM car c
JOIN device d ON d.car_id = c.id
JOIN gps g ON g.device_id = d.id AND g.car_id = c.id
CROSS JOIN LATERAL (
    SELECT 102 AS item,
           CASE WHEN jsonb_typeof(e->'tyre') = 'number' THEN (e->>'tyre')::numeric::integer END AS tyre,
           CASE WHEN jsonb_typeof(e->'pressure_kpa') = 'number' THEN (e->>'pressure_kpa')::numeric::integer END
               AS pressure_kpa,
           NULL::integer AS pressure_raw,
           CASE WHEN jsonb_typeof(e->'temperature_c') = 'number' THEN (e->>'temperature_c')::numeric::integer END
               AS temperature_c,
           CASE WHEN jsonb_typeof(e->'battery_pct') = 'number' THEN (e->>'battery_pct')::numeric::integer END
               AS battery_pct,
           CASE WHEN jsonb_typeof(e->'type') = 'number' THEN (e->>'type')::numeric::integer END AS alarm_type
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(g.extras->'tpms_alarm'->'events') = 'array'
                                   THEN g.extras->'tpms_alarm'->'events' ELSE '[]'::jsonb END) AS e
    WHERE jsonb_typeof(e) = 'object'
    UNION ALL
    SELECT 5, (w.n - 1)::integer, NULL, (w.v #>> '{}')::numeric::integer, NULL, NULL, NULL
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(g.extras->'tyre_pressure_raw') = 'array'
                                   THEN g.extras->'tyre_pressure_raw' ELSE '[]'::jsonb END) WITH ORDINALITY AS w(v, n)
    WHERE jsonb_typeof(w.v) = 'number'
) t
WHERE g.extras ? 'tpms_alarm' OR g.extras ? 'tyre_pressure_raw';

-- The tpmsLog permission guards the TPMS log like each log has its own. The tyre readings are part of the
-- fixes a GPS log reader already sees, so on an existing installation every role that may read the GPS log
-- gets the TPMS log with the same actions; the demo seed grants it to its administrator roles.
INSERT INTO permission (code, name, actions) VALUES ('tpmsLog', '胎压日志', ARRAY['export', 'query'])
ON CONFLICT (code) DO NOTHING;

INSERT INTO role_permission (role_id, permission_code, actions)
SELECT p.role_id, 'tpmsLog', p.actions
FROM role_permission p
WHERE p.permission_code = 'gpsLog'
ON CONFLICT (role_id, permission_code) DO NOTHING;
