-- The shape a terminal area was sent as, kept on its fence_sync row: the delete command differs per shape
-- (0x8601 circle, 0x8603 rectangle, 0x8605 polygon, 0x8607 route) and a deleted fence's row has no fence
-- left to read it from. NULL only before the first send.
-- depends: 0040_fences

ALTER TABLE fence_sync ADD COLUMN shape text CHECK (shape IS NULL OR shape IN ('circle', 'rectangle', 'polygon', 'route', 'district'));

-- The reconciler's tick reads the rows to send (pending) and to follow (sent) every second.
CREATE INDEX fence_sync_open ON fence_sync (state) WHERE state IN ('pending', 'sent');

-- What the fence screen lists per vehicle (api entity fenceSync): the row with its terminal's car, plate and
-- phone. Tenant: the row's enterprise (the device's). Rows of deleted devices are gone with them (cascade);
-- a soft-deleted device's rows are hidden.
CREATE VIEW fence_sync_view AS
SELECT fs.fence_id, fs.device_id, fs.enterprise_id, d.car_id, c.plate_number, d.phone, f.name AS fence_name,
       fs.wanted, fs.state, fs.result, fs.error, fs.updated_at
FROM fence_sync fs
JOIN device d ON d.id = fs.device_id AND d.record_state = 1
LEFT JOIN car c ON c.id = d.car_id
LEFT JOIN fence f ON f.id = fs.fence_id;
