-- The message log keeps the frames of GB/T 32960, GB 17691 / HJ 1239 and DB4403/T 363 terminals too (streams step
-- gb_message_log, streams/message_log.py), as GB/T 32960.2's platform keeps each vehicle's data as received:
-- protocol names the frame's family (device.protocol: jt808, or one of fleet.gb32960_records.GB_PROTOCOLS), so
-- a frame's msg_id (an 808 message id, or a GB header command) is read in its own catalogue. A GB frame has no
-- serial: its seq is the data unit's collection time in seconds since 1970 (0 without one), which tells apart
-- the frames one read of the connection carries (they share their receive time). The JT/T 808 rows keep the
-- default; the views are made again to show the column.
-- depends: 0070_nev_state_2025_blocks

ALTER TABLE message_log ADD COLUMN protocol text NOT NULL DEFAULT 'jt808';

DROP VIEW upstream_message_view;
DROP VIEW message_log_view;
CREATE VIEW message_log_view AS
SELECT m.time, m.device_id, m.car_id, m.enterprise_id, m.phone, m.direction, m.msg_id, m.seq, m.raw_hex,
       m.raw_truncated, m.decoded, m.command_id, m.gateway_id, c.plate_number, m.protocol
FROM message_log m
LEFT JOIN car c ON c.id = m.car_id;

CREATE VIEW upstream_message_view AS
SELECT * FROM message_log_view WHERE direction = 0;

-- A GB frame's decoded JSON (a 96-cell pack's, ~3 KB) is the first the log compresses out of line: lz4, not pglz.
ALTER TABLE message_log ALTER COLUMN decoded SET COMPRESSION lz4;
