-- JT/T 809 requests from the superior handled end to end (exchange/link/service.py, exchange/README.md).
--
-- exchange_sent_count: positions the link service sent to a platform, per UTC second of sending, kept for the
-- 0x9101 window (2 h). 0x9101 reconciles the superior's count of a time window against these, so the first
-- 0x9101 after a link service restart still sees what the previous process sent (JT/T 809 §5.2.3).
-- exchange_urging: 0x9401 urgings (督办) from a superior. `alarm_id` is the alarm the urging names, matched by
-- plate and colour (a car of the platform's exchanged enterprises), upper-platform alarm type and alarm time;
-- NULL when none matched (kept, so an operator sees what the regulator asked). `deadline` is the urging's
-- END_TIME. `answered_at`: when the 0x1401 answer (the handling's result) was sent.
-- exchange_handling_cursor: per platform, the last alarm_confirm_record id whose handling the link service
-- reported (0x1403 for a forwarded alarm, 0x1401 for an urged one). The confirm record is written in the
-- same transaction as the handling, so no handling is lost when Kafka or the link is away.
-- exchange_control: vehicle control requests 0x9501-0x9505 (their 2011 data as hex, the request's SN), the
-- command each became (`command_id`, sent through the one command path: a `command` row and
-- jt808.downlink.v1), and the answer sent (`outcome`: ok, failed, offline, unknown; `answered_at`). A vehicle
-- offline or not exchanged has no command and is answered at once.
-- depends: 0045_exchange

CREATE TABLE exchange_sent_count (
    platform_id  bigint NOT NULL REFERENCES superior_platform(id) ON DELETE CASCADE,
    second       bigint NOT NULL,      -- UTC epoch second the positions were written to a link
    positions    integer NOT NULL,
    PRIMARY KEY (platform_id, second)
);

CREATE TABLE exchange_urging (
    id                bigserial PRIMARY KEY,
    platform_id       bigint NOT NULL REFERENCES superior_platform(id) ON DELETE CASCADE,
    enterprise_id     bigint NOT NULL REFERENCES enterprise(id),
    alarm_id          bigint REFERENCES alarm(id) ON DELETE SET NULL,
    received_at       timestamptz NOT NULL DEFAULT now(),
    source_sn         bigint NOT NULL,   -- the 0x9400 header's MSG_SN (a 2019 0x1401 names it)
    supervision_id    text NOT NULL,     -- SUPERVISION_ID, 4 bytes as hex
    plate             text NOT NULL,
    plate_colour      smallint NOT NULL,
    warn_src          smallint NOT NULL,
    warn_type         integer NOT NULL,  -- upper-platform alarm type 1-13 (platform-spec §9)
    warn_time         timestamptz NOT NULL,
    deadline          timestamptz NOT NULL,
    level             smallint NOT NULL, -- 0 urgent, 1 normal
    supervisor        text NOT NULL DEFAULT '',
    supervisor_tel    text NOT NULL DEFAULT '',
    supervisor_email  text NOT NULL DEFAULT '',
    result            smallint,          -- the 0x1401 RESULT sent
    answered_at       timestamptz
);
CREATE INDEX exchange_urging_open ON exchange_urging (platform_id) WHERE answered_at IS NULL;
CREATE INDEX exchange_urging_platform ON exchange_urging (platform_id, received_at);

CREATE TABLE exchange_handling_cursor (
    platform_id        bigint PRIMARY KEY REFERENCES superior_platform(id) ON DELETE CASCADE,
    last_record_id     bigint NOT NULL,
    updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE exchange_control (
    id            bigserial PRIMARY KEY,
    platform_id   bigint NOT NULL REFERENCES superior_platform(id) ON DELETE CASCADE,
    received_at   timestamptz NOT NULL DEFAULT now(),
    data_type     integer NOT NULL,
    source_sn     bigint NOT NULL,
    plate         text NOT NULL,
    plate_colour  smallint NOT NULL,
    data_hex      text NOT NULL,
    command_id    bigint REFERENCES command(id) ON DELETE SET NULL,
    outcome       text CHECK (outcome IN ('ok', 'failed', 'offline', 'unknown')),
    answered_at   timestamptz
);
CREATE INDEX exchange_control_open ON exchange_control (platform_id) WHERE answered_at IS NULL;
