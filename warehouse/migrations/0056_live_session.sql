-- The live log (platform-spec §2 logs: live, with detail): one row per life of a media-server stream of live
-- video, listening or talk (gateway/video/platform.py, the only writer): who asked for it, when it was asked
-- for (before its 0x9101 went out), its first frame, its end and why, the media bytes the terminal sent (what
-- the SIM card's data plan paid), its frames, the console's heartbeats and the most viewers at once. A
-- playback stream is recorded too (its own log is for later); the live log's view leaves it out.
--
-- Writes are idempotent upserts on ``session_key`` (the media server's id of that life): the start, the first
-- frame and the end are each the whole row as known then, in any order; a later write never blanks what an
-- earlier one knew (COALESCE) nor lowers a counter (GREATEST).
--
-- video_log.session_key: the session a viewer watched, so the session's detail lists its viewers (and
-- video_log_view shows it).
-- live_session_view: with the plate, the terminal's serial, and the viewers' count and bytes sent.
-- depends: 0025_video_log

CREATE TABLE live_session (
    id                   bigserial PRIMARY KEY,
    session_key          uuid NOT NULL UNIQUE,
    enterprise_id        bigint NOT NULL REFERENCES enterprise(id),
    device_id            bigint NOT NULL REFERENCES device(id),
    car_id               bigint REFERENCES car(id),
    user_id              bigint,
    user_name            text,
    stream_id            text NOT NULL,
    kind                 text NOT NULL CHECK (kind IN ('live', 'listen', 'talk', 'playback')),
    channel              smallint NOT NULL,
    data_type            smallint,
    stream_type          smallint,
    request_time         timestamptz NOT NULL,
    first_frame_time     timestamptz,
    end_time             timestamptz,
    duration_s           integer,
    bytes_in             bigint NOT NULL DEFAULT 0,
    frames               integer NOT NULL DEFAULT 0,
    heartbeats           integer NOT NULL DEFAULT 0,
    last_heartbeat_time  timestamptz,
    peak_viewers         smallint NOT NULL DEFAULT 0,
    end_reason           text CHECK (end_reason IN ('user', 'idle', 'terminal_left', 'never_connected', 'replaced',
                                                    'server_stopping')),
    updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX live_session_enterprise_request_idx ON live_session (enterprise_id, request_time DESC);
CREATE INDEX live_session_car_request_idx ON live_session (car_id, request_time DESC);

ALTER TABLE video_log ADD COLUMN session_key uuid;
CREATE INDEX video_log_session_idx ON video_log (session_key) WHERE session_key IS NOT NULL;

-- video_log_view as in 0025, with the session (a column appended: the view's other columns stay as they were)
CREATE OR REPLACE VIEW video_log_view AS
SELECT v.id, v.enterprise_id, v.device_id, v.car_id, c.plate_number, d.device_sn, v.user_id, v.user_name,
       v.stream_id, v.kind, v.channel, v.data_type, v.stream_type, v.transport, v.client, v.start_time,
       v.end_time, v.duration_s, v.bytes_sent, v.end_reason, v.session_key
FROM video_log v
LEFT JOIN car c ON c.id = v.car_id
LEFT JOIN device d ON d.id = v.device_id;

CREATE VIEW live_session_view AS
SELECT s.id, s.session_key, s.enterprise_id, s.device_id, s.car_id, c.plate_number, d.device_sn, s.user_id,
       s.user_name, s.stream_id, s.kind, s.channel, s.data_type, s.stream_type, s.request_time,
       s.first_frame_time, s.end_time, s.duration_s, s.bytes_in, s.frames, s.heartbeats, s.last_heartbeat_time,
       s.peak_viewers, s.end_reason, COALESCE(v.viewers, 0) AS viewers, COALESCE(v.bytes_sent, 0) AS bytes_sent
FROM live_session s
LEFT JOIN car c ON c.id = s.car_id
LEFT JOIN device d ON d.id = s.device_id
LEFT JOIN LATERAL (SELECT count(*)::integer AS viewers, sum(l.bytes_sent)::bigint AS bytes_sent
                   FROM video_log l WHERE l.session_key = s.session_key) v ON true
WHERE s.kind <> 'playback';
