-- Alarms: one row per alarm episode or event, written by the streams step streams/alarms.py
-- (streams/alarm_model.py store_episodes / end_episodes), handled through the API (confirm, ignore).
--
-- key / type: the alarm catalogue (fleet/alarm_catalog.py): a0..a31 the 0x0200 alarm bits (type 1),
-- v0..v31 the 0x14 video alarm bits (2), p_* platform alarms (3), adas_/dsm_/tpms_/bsd_<type> active
-- safety (5-8). Held kinds (bits, platform) are episodes: a row when the condition starts, end_time when
-- it stops (NULL while it lasts); active-safety and video events are instantaneous (end_time = start).
-- Idempotent: a replayed uplink raises the same (device, key, start_time), which ON CONFLICT absorbs.
-- backlog: raised by a 0x0704 item or a fix not newer than the device's newest (stored, never pushed).
-- message_seq: serial of the frame that raised it (8203 answers it); warn_uuid: the 32-char alarm uuid
-- the platform put in 0x9208 (attachments are keyed by it); state 0 unhandled, 1 processing,
-- 2 finished/ignored, 3 no action, 4 later.
-- depends: 0017_track_day

CREATE TABLE alarm (
    id                bigserial PRIMARY KEY,
    enterprise_id     bigint NOT NULL REFERENCES enterprise(id),
    device_id         bigint NOT NULL REFERENCES device(id),
    car_id            bigint REFERENCES car(id),
    plate_number      text,
    driver_id         bigint,
    driver_name       text,
    phone             text NOT NULL,
    type              smallint NOT NULL,
    key               text NOT NULL,
    level             smallint,
    start_time        timestamptz NOT NULL,
    end_time          timestamptz,
    lat               double precision,
    lng               double precision,
    speed             real,
    altitude          real,
    address           text,
    alarm_flags       bigint NOT NULL DEFAULT 0,
    message_seq       integer,
    warn_uuid         text,
    alarm_no          jsonb,
    attachment_count  smallint NOT NULL DEFAULT 0,
    atted             boolean NOT NULL DEFAULT false,
    state             smallint NOT NULL DEFAULT 0 CHECK (state BETWEEN 0 AND 4),
    opinion           text,
    confirm_time      timestamptz,
    confirm_user_id   bigint,
    confirm_name      text,
    backlog           boolean NOT NULL DEFAULT false,
    details           jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (device_id, key, start_time)
);
CREATE INDEX alarm_tenant_time ON alarm (enterprise_id, start_time DESC);
CREATE INDEX alarm_car_time ON alarm (car_id, start_time DESC);
CREATE INDEX alarm_unhandled ON alarm (enterprise_id) WHERE state = 0;
CREATE INDEX alarm_warn_uuid ON alarm (warn_uuid) WHERE warn_uuid IS NOT NULL;
-- the streams worker rebuilds its per-device bit state from the open episodes when it starts
CREATE INDEX alarm_open ON alarm (device_id) WHERE end_time IS NULL;

-- Each handling of an alarm (confirm / ignore), with the 8203 command it sent (if any).
CREATE TABLE alarm_confirm_record (
    id               bigserial PRIMARY KEY,
    alarm_id         bigint NOT NULL REFERENCES alarm(id) ON DELETE CASCADE,
    message_seq      integer,
    device_id        bigint NOT NULL,
    plate_number     text,
    enterprise_id    bigint NOT NULL REFERENCES enterprise(id),
    alarm_type       integer NOT NULL DEFAULT 0,
    alarm_desc       text,
    state            smallint NOT NULL,
    opinion          text,
    confirm_time     timestamptz NOT NULL DEFAULT now(),
    confirm_user_id  bigint,
    confirm_name     text,
    command_id       bigint
);
CREATE INDEX alarm_confirm_record_alarm ON alarm_confirm_record (alarm_id);
CREATE INDEX alarm_confirm_record_tenant_time ON alarm_confirm_record (enterprise_id, confirm_time DESC);

-- What the alarm lists read (entities alarm, safetyAlarm, myAlarm): each alarm with its enterprise's
-- name and path (scoping by subtree, like car_view).
CREATE VIEW alarm_view AS
SELECT a.*, e.name AS enterprise_name, e.path AS enterprise_path
FROM alarm a
JOIN enterprise e ON e.id = a.enterprise_id;
