-- JT/T 809 data exchange, fleetwatch as the inferior platform (platform-spec §1, §2 superiorPlatform; the link
-- service exchange/link, exchange/README.md).
--
-- superior_platform: one superior (regulator) platform a root enterprise forwards to. `password` is kept in
-- clear because the 0x1001 login sends it; the API never returns it (write-only field) and nothing logs it.
-- `exchanged_enterprise_ids`: the enterprise subtrees whose vehicles are forwarded (empty: the owner's whole
-- subtree). `down_link_host` / `down_link_port`: the sub link server the superior connects back to, sent as
-- DOWN_LINK_IP / DOWN_LINK_PORT in 0x1001. `position_interval_s`: at most one 0x1202 per vehicle per interval.
-- exchange_link_state: one row per platform and link (main / sub), written by the link service.
-- exchange_message: link, control, platform and alarm frames both ways, decoded and as hex. Positions are not
-- logged row by row (10,000/s would dwarf everything else): each link's sent / back-filled / thinned counts are
-- in exchange_link_state; a vehicle's 0x1201 registration (once per login) is logged. Low volume, so one
-- table (no day partitions), kept FLEET_EXCHANGE_MESSAGE_LOG_DAYS (30) by the link service.
-- exchange_inspection: 0x9301 inspections (查岗) from a superior, answered through the API (state open ->
-- answered), sent back as 0x1301 by the link service, which polls this table (state answered -> sent).
-- depends: 0044_device_terminal_id_indexes

CREATE TABLE superior_platform (
    id                        bigserial PRIMARY KEY,
    enterprise_id             bigint NOT NULL REFERENCES enterprise(id),
    name                      text NOT NULL,
    host                      text NOT NULL,
    port                      integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
    user_id                   bigint NOT NULL CHECK (user_id BETWEEN 0 AND 4294967295),
    password                  text NOT NULL,
    centre_id                 bigint NOT NULL CHECK (centre_id BETWEEN 0 AND 4294967295),
    version                   text NOT NULL DEFAULT '2019' CHECK (version IN ('2011', '2019')),
    encrypted                 boolean NOT NULL DEFAULT false,
    m1                        bigint NOT NULL DEFAULT 0 CHECK (m1 BETWEEN 0 AND 4294967295),
    ia1                       bigint NOT NULL DEFAULT 0 CHECK (ia1 BETWEEN 0 AND 4294967295),
    ic1                       bigint NOT NULL DEFAULT 0 CHECK (ic1 BETWEEN 0 AND 4294967295),
    encrypt_key               bigint NOT NULL DEFAULT 0 CHECK (encrypt_key BETWEEN 0 AND 4294967295),
    down_link_host            text NOT NULL DEFAULT '127.0.0.1',
    down_link_port            integer NOT NULL CHECK (down_link_port BETWEEN 1 AND 65535),
    position_interval_s       integer NOT NULL DEFAULT 30 CHECK (position_interval_s BETWEEN 0 AND 3600),
    exchanged_enterprise_ids  jsonb NOT NULL DEFAULT '[]',
    enabled                   boolean NOT NULL DEFAULT true,
    remark                    text NOT NULL DEFAULT '',
    created_at                timestamptz NOT NULL DEFAULT now(),
    updated_at                timestamptz NOT NULL DEFAULT now(),
    CHECK (NOT encrypted OR m1 > 0)
);
CREATE UNIQUE INDEX superior_platform_name_uniq ON superior_platform (enterprise_id, name);

CREATE TABLE exchange_link_state (
    platform_id        bigint NOT NULL REFERENCES superior_platform(id) ON DELETE CASCADE,
    link               text NOT NULL CHECK (link IN ('main', 'sub')),
    state              text NOT NULL,      -- disconnected, connecting, logging_in, connected, refused
    since              timestamptz NOT NULL DEFAULT now(),
    last_heartbeat_at  timestamptz,
    sent_count         bigint NOT NULL DEFAULT 0,   -- frames written (positions included)
    received_count     bigint NOT NULL DEFAULT 0,   -- frames read
    backfilled_count   bigint NOT NULL DEFAULT 0,   -- positions sent in 0x1203
    thinned_count      bigint NOT NULL DEFAULT 0,   -- positions not sent: within the interval of the last one
    mismatch_count     bigint NOT NULL DEFAULT 0,   -- 0x9101 counts that differ from what was sent
    last_error         text,
    updated_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform_id, link)
);

CREATE TABLE exchange_message (
    id           bigserial PRIMARY KEY,
    platform_id  bigint NOT NULL REFERENCES superior_platform(id) ON DELETE CASCADE,
    time         timestamptz NOT NULL DEFAULT now(),
    direction    text NOT NULL CHECK (direction IN ('up', 'down')),
    link         text NOT NULL CHECK (link IN ('main', 'sub')),
    msg_id       integer NOT NULL,
    data_type    integer,
    decoded      jsonb,
    raw_hex      text NOT NULL
);
CREATE INDEX exchange_message_platform_time ON exchange_message (platform_id, time);

CREATE TABLE exchange_inspection (
    id             bigserial PRIMARY KEY,
    platform_id    bigint NOT NULL REFERENCES superior_platform(id) ON DELETE CASCADE,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    received_at    timestamptz NOT NULL DEFAULT now(),
    object_type    smallint NOT NULL,
    object_id      text NOT NULL,
    info_id        bigint NOT NULL,
    source_sn      bigint NOT NULL,    -- the 0x9300 header's MSG_SN (a 2019 answer names it)
    question       text NOT NULL,
    deadline       timestamptz,
    state          text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'answered', 'sent')),
    answer         text,
    answered_by    bigint,
    answered_at    timestamptz,
    sent_at        timestamptz
);
CREATE INDEX exchange_inspection_platform_state ON exchange_inspection (platform_id, state);
