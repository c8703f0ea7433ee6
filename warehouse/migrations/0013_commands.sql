-- Commands to terminals: one row per command, its state machine and its reply.
--
-- command: created by the API (api/commands.py) before its downlink goes to jt808.downlink.v1;
-- sent / failed from the gateway's jt808.sent.v1 record (streams/commands.py, agent `sent`, which
-- knows the header serial used); answered when a reply (0x0001, 0x0104, 0x0201, 0x0802, 0x0805) of
-- that terminal carries that serial as reply_seq; timed_out by the streams timer after
-- FLEET_COMMANDS_TIMEOUT_S. result: 0 success, 1 failure, 2 message error, 3 unsupported (0x0001),
-- 0 for the command's own reply. Terminal states (answered, timed_out, failed) never change again.
-- command_reply_early: a reply processed before the sent record that tells the serial it answers
-- (the two come from different topics); matched when that record arrives, then deleted.
-- device_param: the terminal's parameters as its last 0x0104 told them (hex id -> hex value).
-- depends: 0012_open_platform

CREATE TABLE command (
    id               bigserial PRIMARY KEY,
    enterprise_id    bigint NOT NULL REFERENCES enterprise(id),
    car_id           bigint REFERENCES car(id),
    device_id        bigint NOT NULL REFERENCES device(id),
    phone            text NOT NULL,
    msg_id           integer NOT NULL CHECK (msg_id BETWEEN 0 AND 65535),
    seq              integer CHECK (seq BETWEEN 0 AND 65535),
    payload          jsonb NOT NULL DEFAULT '{}'::jsonb,
    body_hex         text NOT NULL DEFAULT '',
    created_by       bigint,
    created_by_name  text,
    state            text NOT NULL DEFAULT 'created'
                     CHECK (state IN ('created', 'sent', 'answered', 'timed_out', 'failed')),
    result           smallint CHECK (result BETWEEN 0 AND 255),
    reply_msg_id     integer,
    reply            jsonb,
    reason           text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    sent_at          timestamptz,
    answered_at      timestamptz,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
-- state.json and the downstream message list: by id within an enterprise, by enterprise and time.
CREATE INDEX command_enterprise_created_idx ON command (enterprise_id, created_at DESC);
CREATE INDEX command_car_created_idx ON command (car_id, created_at DESC);
-- reply matching: a terminal's unanswered commands by serial.
CREATE INDEX command_device_seq_open_idx ON command (device_id, seq) WHERE state IN ('created', 'sent');
-- timeout sweep.
CREATE INDEX command_open_created_idx ON command (state, created_at) WHERE state IN ('created', 'sent');

CREATE TABLE command_reply_early (
    device_id     bigint NOT NULL,
    reply_seq     integer NOT NULL,
    msg_id        integer NOT NULL,
    reply_msg_id  integer,
    result        smallint,
    reply         jsonb,
    received_at   timestamptz NOT NULL,
    PRIMARY KEY (device_id, reply_seq, msg_id)
);
CREATE INDEX command_reply_early_received_idx ON command_reply_early (received_at);

CREATE TABLE device_param (
    device_id   bigint NOT NULL REFERENCES device(id),
    param_id    integer NOT NULL CHECK (param_id >= 0),
    value_hex   text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (device_id, param_id)
);
