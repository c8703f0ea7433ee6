-- The fence, label point and fence binding lists (api/query/entities_fences.py): what the generic list
-- framework reads, and the keys a spreadsheet names a fence by.
--
-- A fence's and a label point's name is unique in its enterprise: the binding import names a fence by it
-- (platform-spec §2 lists import), so two fences of one enterprise with one name would make a row ambiguous.
-- Fences and label points are deleted for good (no record state): fence_binding cascades, and the terminal
-- sync keeps its delete rows in fence_sync (no foreign key there) until the terminal acknowledged them.
--
-- The views present columns as the API reads them: attributes as the array of attribute numbers (bit n set
-- = attribute n, platform-spec §9), daily times as HH:MM text, the enterprise's name, the bound vehicles.
-- depends: 0040_fences

CREATE UNIQUE INDEX fence_name_uniq ON fence (enterprise_id, name);
CREATE UNIQUE INDEX label_point_name_uniq ON label_point (enterprise_id, name);
CREATE INDEX fence_binding_tenant ON fence_binding (enterprise_id, fence_id);

CREATE VIEW fence_view AS
SELECT f.id,
       f.enterprise_id,
       e.name AS enterprise_name,
       f.name,
       f.fence_type,
       f.business_type,
       f.shape,
       f.geometry,
       ARRAY(SELECT n FROM generate_series(1, 31) AS n WHERE f.attributes & (1 << n) <> 0) AS attributes,
       f.start_time,
       f.end_time,
       to_char(f.daily_start, 'HH24:MI') AS daily_start,
       to_char(f.daily_end, 'HH24:MI') AS daily_end,
       f.speed_limit,
       f.overspeed_duration,
       f.night_speed_limit,
       f.stay_limit,
       f.remark,
       (SELECT count(*) FROM fence_binding b JOIN car c ON c.id = b.car_id AND c.record_state = 1
        WHERE b.fence_id = f.id)::integer AS bind_count,
       f.created_at,
       f.updated_at
FROM fence f
JOIN enterprise e ON e.id = f.enterprise_id;

-- One row per binding; tenant = the car's enterprise (fence_binding.enterprise_id), which is the fence's
-- enterprise or one below it.
CREATE VIEW fence_binding_view AS
SELECT b.fence_id,
       f.name AS fence_name,
       f.business_type,
       b.car_id,
       c.plate_number,
       b.enterprise_id,
       b.created_at
FROM fence_binding b
JOIN fence f ON f.id = b.fence_id
JOIN car c ON c.id = b.car_id AND c.record_state = 1;  -- a deleted car's binding is not shown

-- The fence lists import bindings and export like the other lists (platform-spec §6 actions import, export):
-- the catalogue entry gains both, and a role that may already add fences keeps the capability for them.
UPDATE permission SET actions = (SELECT array_agg(DISTINCT a ORDER BY a) FROM unnest(actions || ARRAY['import', 'export']) a)
WHERE code = 'fence';
UPDATE role_permission SET actions = (SELECT array_agg(DISTINCT a ORDER BY a)
                                      FROM unnest(actions || ARRAY['import', 'export']) a)
WHERE permission_code = 'fence' AND 'add' = ANY (actions);

-- The inOutAlarm list and report (platform-spec §2): area and route in/out alarms from every source: the
-- terminal's status bits 20 / 21 (keys a20, a21), the platform fence step's episodes (type 4, key
-- fence:<fenceId>:<kind>[:segment]) and the terminal's own 0x0200 items 0x11-0x13 stored as type 4 alarms
-- with details.fenceId / fenceName. fence_name: the name the alarm was raised with, else the fence's now.
CREATE VIEW in_out_alarm_view AS
SELECT a.*, e.name AS enterprise_name, e.path AS enterprise_path,
       ref.fence_id,
       COALESCE(a.details->>'fenceName', f.name) AS fence_name,
       CASE WHEN a.key LIKE 'fence:%' THEN 'platform' ELSE 'terminal' END AS source,
       CASE WHEN a.key LIKE 'fence:%' OR a.key LIKE 'tfence:%' THEN split_part(a.key, ':', 3)
            ELSE a.details->>'kind' END AS kind
FROM alarm a
JOIN enterprise e ON e.id = a.enterprise_id
CROSS JOIN LATERAL (
    SELECT CASE WHEN a.key ~ '^t?fence:[0-9]{1,18}:' THEN split_part(a.key, ':', 2)::bigint
                WHEN a.details->>'fenceId' ~ '^[0-9]{1,18}$' THEN (a.details->>'fenceId')::bigint END AS fence_id
) ref
LEFT JOIN fence f ON f.id = ref.fence_id
WHERE a.key IN ('a20', 'a21') OR a.key LIKE 'fence:%' OR a.key LIKE 'tfence:%' OR (a.type = 4 AND a.details ? 'fenceId');
