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
-- exchange_notice: messages between platforms (0x9302) and warning tips (0x9402) from a superior, shown as
-- notices of business type 5 (console-spec §9 bizType 5 通知公告) in the console's one notice list: `notice_view`
-- is the alarms' notices (type 6, the unhandled alarms) and these, read by POST /api/query/notice.json.
-- A tip about a vehicle of ours belongs to the vehicle's enterprise, anything else to the platform's owner.
-- `answered_at`: when the 0x1302 acknowledgement of a message was sent (the link service sends it on receipt).
-- depends: 0046_exchange_console

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

CREATE TABLE exchange_notice (
    id            bigserial PRIMARY KEY,
    platform_id   bigint NOT NULL REFERENCES superior_platform(id) ON DELETE CASCADE,
    enterprise_id bigint NOT NULL REFERENCES enterprise(id),
    received_at   timestamptz NOT NULL DEFAULT now(),
    data_type     integer NOT NULL,   -- 0x9302 message, 0x9402 warning tip
    source_sn     bigint NOT NULL,
    info_id       bigint,             -- 0x9302 INFO_ID (what 0x1302 acknowledges)
    object_type   smallint,
    object_id     text,
    car_id        bigint REFERENCES car(id) ON DELETE SET NULL,
    plate         text,               -- 0x9402: the vehicle it is about
    plate_colour  smallint,
    warn_src      smallint,
    warn_type     integer,
    warn_time     timestamptz,
    content       text NOT NULL,
    answered_at   timestamptz
);
CREATE INDEX exchange_notice_tenant_time ON exchange_notice (enterprise_id, received_at DESC);

-- The console's notices (api/routes/alarms.py NOTICE): alarms (biz_type 6, named per language by the API from
-- key / type / level / details) and exchange notices (biz_type 5, named by `notice_kind`, with their content). `state` 0 is
-- what the notice list shows: an unhandled alarm; an exchange notice in its first 7 days.
CREATE VIEW notice_view AS
SELECT 6 AS biz_type, a.id, a.enterprise_id, a.car_id, a.device_id, a.plate_number, a.phone, a.type, a.key,
       a.level, a.details, a.state, a.start_time AS create_time, NULL::text AS notice_kind,
       NULL::text AS notice_content
FROM alarm a
UNION ALL
SELECT 5, n.id, n.enterprise_id, n.car_id, NULL, n.plate, NULL, NULL, NULL, NULL, NULL,
       CASE WHEN n.received_at > now() - interval '7 days' THEN 0 ELSE 1 END, n.received_at,
       CASE WHEN n.data_type = 37890 THEN 'warning' ELSE 'message' END,  -- 0x9402 / 0x9302
       COALESCE(n.plate || ' ', '') || n.content
FROM exchange_notice n;

-- The earliest open deadline a superior's urging put on an alarm (the alarm lists' `urgingDeadline`,
-- api/query/entities_alarms.py): no `id` column, so the lists' expression reaches the alarm row's own id.
CREATE VIEW exchange_urging_deadline AS
SELECT alarm_id AS urged_alarm_id, min(deadline) AS urging_deadline
FROM exchange_urging WHERE alarm_id IS NOT NULL GROUP BY alarm_id;
