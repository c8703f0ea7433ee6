-- Every frame kept: each uplink a terminal sent and each frame the gateway wrote to a
-- terminal, as received / written (raw_hex) and decoded (the codec's JSON at the time; `fleet redecode`
-- rewrites it after a codec fix). Written by streams/message_log.py, read through the declared
-- entities originalMessage / upstreamMessage (api/query/entities_messages.py).
--
-- Partitioned by day on `time` like gps (native range partitions message_log_YYYYMMDD created ahead
-- by warehouse.partitions, a DEFAULT partition so no row is ever refused; whole days are dropped by
-- the retention, FLEET_DATABASE_MESSAGE_LOG_RETENTION_DAYS). `time`: gateway receive time (up) or
-- write time (down). Idempotent: a redelivered Kafka record carries the same (device, time,
-- direction, message id, serial), so the writer's ON CONFLICT DO NOTHING adds nothing; that unique
-- index also serves reads by device and time. raw_truncated: the media bytes of a 0x0801 are not
-- kept here (they are in the media store, contract D).
-- depends: 0012_open_platform

CREATE TABLE message_log (
    time           timestamptz NOT NULL,
    device_id      bigint NOT NULL,
    car_id         bigint,
    enterprise_id  bigint NOT NULL,
    phone          text NOT NULL,
    direction      smallint NOT NULL CHECK (direction IN (0, 1)),
    msg_id         integer NOT NULL,
    seq            integer NOT NULL,
    raw_hex        text NOT NULL,
    raw_truncated  boolean NOT NULL DEFAULT false,
    decoded        jsonb,
    command_id     bigint,
    gateway_id     text
) PARTITION BY RANGE (time);

CREATE TABLE message_log_default PARTITION OF message_log DEFAULT;

CREATE UNIQUE INDEX message_log_key ON message_log (device_id, time, direction, msg_id, seq);
CREATE INDEX message_log_car_time_idx ON message_log (car_id, time);
CREATE INDEX message_log_msg_time_idx ON message_log (msg_id, time);

-- The log screens' rows: each frame with its vehicle's plate number (the car recorded with the frame).
CREATE VIEW message_log_view AS
SELECT m.time, m.device_id, m.car_id, m.enterprise_id, m.phone, m.direction, m.msg_id, m.seq, m.raw_hex,
       m.raw_truncated, m.decoded, m.command_id, m.gateway_id, c.plate_number
FROM message_log m
LEFT JOIN car c ON c.id = m.car_id;

CREATE VIEW upstream_message_view AS
SELECT * FROM message_log_view WHERE direction = 0;
