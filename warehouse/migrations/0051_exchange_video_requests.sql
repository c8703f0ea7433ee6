-- JT/T 1078's video requests of a superior platform over JT/T 809 (platform-spec §2 data exchange "playback";
-- exchange/link/video_requests.py): every 0x9801 real-time audio/video request, 0x9802 stop, 0x9A01 remote
-- playback request and 0x9A02 playback control the link service receives, with the vehicle it names (when the
-- platform exchanges it) and the RESULT of the answer it sent (0x1801 / 0x1802 / 0x1A01 / 0x1A02; JT/T 1078:
-- 0 success, 1 failure, 2 not supported, 3 session ended, 4 wrong authorisation code, 5 not cross-region).
-- The playback screen reads exchange_video_request_view, each row with its superior platform's enterprise.
-- depends: 0050_exchange_request_expiry

CREATE TABLE exchange_video_request (
    id            bigserial PRIMARY KEY,
    platform_id   bigint NOT NULL REFERENCES superior_platform(id) ON DELETE CASCADE,
    received_at   timestamptz NOT NULL DEFAULT now(),
    data_type     integer NOT NULL CHECK (data_type IN (38913, 38914, 39425, 39426)),  -- 0x9801 0x9802 0x9A01 0x9A02
    source_sn     bigint NOT NULL,
    plate         text NOT NULL,
    plate_colour  smallint NOT NULL,
    car_id        bigint,             -- the vehicle, when the platform exchanges it
    channel_id    smallint,
    av_item_type  smallint,
    stream_type   smallint,           -- 0x9A01
    mem_type      smallint,           -- 0x9A01
    start_at      timestamptz,        -- 0x9A01
    end_at        timestamptz,        -- 0x9A01
    control_type  smallint,           -- 0x9A02
    result        smallint,           -- RESULT of our answer; NULL until sent
    answered_at   timestamptz
);
CREATE INDEX exchange_video_request_platform_time ON exchange_video_request (platform_id, received_at);

CREATE VIEW exchange_video_request_view AS
SELECT r.id, r.platform_id, p.name AS platform_name, p.enterprise_id, r.received_at, r.data_type, r.source_sn,
       r.plate, r.plate_colour, r.car_id, r.channel_id, r.av_item_type, r.stream_type, r.mem_type, r.start_at,
       r.end_at, r.control_type, r.result, r.answered_at
FROM exchange_video_request r JOIN superior_platform p ON p.id = r.platform_id;
