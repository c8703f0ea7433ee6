-- The shape a terminal area was sent as, kept on its fence_sync row: the delete command differs per shape
-- (0x8601 circle, 0x8603 rectangle, 0x8605 polygon, 0x8607 route) and a deleted fence's row has no fence
-- left to read it from. NULL only before the first send.
-- depends: 0040_fences

ALTER TABLE fence_sync ADD COLUMN shape text CHECK (shape IS NULL OR shape IN ('circle', 'rectangle', 'polygon', 'route', 'district'));

-- The reconciler's tick reads the rows to send (pending) and to follow (sent) every second.
CREATE INDEX fence_sync_open ON fence_sync (state) WHERE state IN ('pending', 'sent');
