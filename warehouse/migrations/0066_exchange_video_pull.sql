-- fleetwatch as a JT/T 809 superior platform watching an inferior platform's vehicle live or a recording of it
-- (platform-spec §2 inferiorPlatform, car; JT/T 1078-2016 §8.2: 0x9801 / 0x1801, 0x9802 / 0x1802; §8.5: 0x9A01 /
-- 0x1A01, 0x9A02 / 0x1A02).
--
-- exchange_video_pull: an operator's request to watch a channel of an exchange vehicle (`kind` live), or its
-- recording between `start_time` and `end_time` (`kind` playback: 0x9A01 / 0x1A01, ended with 0x9A02 control 2,
-- its stream and storage type as 0x9A01 names them; where 0x9801 / 0x1801 / 0x9802 are named below, a playback
-- has these). The API queues it
-- (state queued, its deadline EXCHANGE_VIDEO_WAIT_S ahead); the superior service sends 0x9801 with the platform's
-- latest AUTHORIZE_CODE_1 (migration 0065) on the sub link, else the main link (state sent, with the link and
-- SN); the platform's 0x1801 answers the oldest sent request of that vehicle: RESULT 0 with SERVER_IP /
-- SERVER_PORT registers a stream with our media server that pulls that address (gateway/video/pull.py; state
-- playing, with its stream id), any other RESULT fails it (state failed, result kept). A request unanswered at
-- its deadline expires; a playing one whose stream the media server no longer has (nobody watched, the
-- operator stopped, the pull ended) is ended with 0x9802 (state ended). `error` says why one failed or ended
-- in a few words the console shows.
-- depends: 0065_inferior_authorize_codes

CREATE TABLE exchange_video_pull (
    id                    bigserial PRIMARY KEY,
    inferior_platform_id  bigint NOT NULL REFERENCES inferior_platform(id) ON DELETE CASCADE,
    enterprise_id         bigint NOT NULL REFERENCES enterprise(id),
    vehicle_id            bigint NOT NULL REFERENCES exchange_vehicle(id) ON DELETE CASCADE,
    kind                  text NOT NULL DEFAULT 'live' CHECK (kind IN ('live', 'playback')),
    start_time            timestamptz,
    end_time              timestamptz,
    stream_type           smallint NOT NULL DEFAULT 0 CHECK (stream_type IN (0, 1, 2)),
    mem_type              smallint NOT NULL DEFAULT 0 CHECK (mem_type IN (0, 1, 2)),
    channel               smallint NOT NULL CHECK (channel BETWEEN 1 AND 255),
    av_type               smallint NOT NULL CHECK (av_type IN (0, 1, 2)),
    state                 text NOT NULL DEFAULT 'queued'
                          CHECK (state IN ('queued', 'sent', 'playing', 'failed', 'expired', 'ended')),
    created_by            bigint,
    created_at            timestamptz NOT NULL DEFAULT now(),
    deadline              timestamptz NOT NULL,
    link                  text,
    sn                    bigint,
    sent_at               timestamptz,
    answered_at           timestamptz,
    result                smallint,
    server_ip             text,
    server_port           integer,
    stream_id             text,
    ended_at              timestamptz,
    error                 text,
    CHECK (kind = 'live' OR (start_time IS NOT NULL AND end_time IS NOT NULL AND end_time > start_time))
);
CREATE INDEX exchange_video_pull_open ON exchange_video_pull (inferior_platform_id, state)
    WHERE state IN ('queued', 'sent', 'playing');

-- exchange_video_pull_view: the requests as the console lists them (entity inferiorVideoRequest): with the
-- platform's name, the vehicle's plate, who asked, and the answer's latency; one waiting past its deadline reads
-- expired before the superior service marks it.
CREATE VIEW exchange_video_pull_view AS
SELECT r.id, r.inferior_platform_id, p.name AS platform_name, r.enterprise_id, r.vehicle_id, v.plate,
       v.plate_colour, r.kind, r.channel, r.av_type, r.start_time, r.end_time, r.stream_type, r.mem_type,
       CASE WHEN r.state IN ('queued', 'sent') AND r.answered_at IS NULL AND r.deadline <= now() THEN 'expired'
            ELSE r.state END AS state,
       r.result, r.error, r.created_by, COALESCE(u.name, u.user_name) AS created_by_name, r.created_at, r.deadline,
       r.sent_at, r.answered_at, r.ended_at,
       CASE WHEN r.answered_at IS NOT NULL AND r.sent_at IS NOT NULL
            THEN GREATEST(0, (extract(epoch FROM r.answered_at - r.sent_at) * 1000)::int) END AS latency_ms
FROM exchange_video_pull r
JOIN inferior_platform p ON p.id = r.inferior_platform_id
JOIN exchange_vehicle v ON v.id = r.vehicle_id
LEFT JOIN app_user u ON u.id = r.created_by;
