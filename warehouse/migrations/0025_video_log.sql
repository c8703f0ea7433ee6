-- Live video, listening, talk and playback: who watched what and when.
--
-- video_log: one row per viewer connection of the media server (gateway/video/platform.py): written when
-- the player connects (end_time NULL while it watches), closed when it leaves with its duration, the
-- bytes sent and why it ended (left, idle, too slow, stopped by the user, the terminal left).
-- video_log_view: with the plate number and the terminal's serial, for the videoLog list (platform-spec §2).
-- depends: 0021_alarm_queries

CREATE TABLE video_log (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    device_id      bigint NOT NULL REFERENCES device(id),
    car_id         bigint REFERENCES car(id),
    user_id        bigint,
    user_name      text,
    stream_id      text NOT NULL,
    kind           text NOT NULL CHECK (kind IN ('live', 'listen', 'talk', 'playback')),
    channel        smallint NOT NULL,
    data_type      smallint,
    stream_type    smallint,
    transport      text,
    client         text,
    start_time     timestamptz NOT NULL DEFAULT now(),
    end_time       timestamptz,
    duration_s     integer,
    bytes_sent     bigint NOT NULL DEFAULT 0,
    end_reason     text
);
CREATE INDEX video_log_enterprise_start_idx ON video_log (enterprise_id, start_time DESC);
CREATE INDEX video_log_car_start_idx ON video_log (car_id, start_time DESC);

CREATE VIEW video_log_view AS
SELECT v.id, v.enterprise_id, v.device_id, v.car_id, c.plate_number, d.device_sn, v.user_id, v.user_name,
       v.stream_id, v.kind, v.channel, v.data_type, v.stream_type, v.transport, v.client, v.start_time,
       v.end_time, v.duration_s, v.bytes_sent, v.end_reason
FROM video_log v
LEFT JOIN car c ON c.id = v.car_id
LEFT JOIN device d ON d.id = v.device_id;
