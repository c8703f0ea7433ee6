-- JT/T 809 data exchange, fleetwatch as the superior platform (platform-spec §2 inferiorPlatform, car, gps,
-- map; the superior service exchange/superior, exchange/README.md).
--
-- inferior_platform: one inferior platform a root enterprise accepts main links from. The 0x1001 login carries
-- `password` in clear, so it is kept as given and compared in constant time; the API never returns it
-- (write-only field) and nothing logs it. `user_id` identifies the platform at login across the whole server
-- (one listening port for every enterprise), hence unique. `allowed_hosts`: source addresses its main link may
-- come from (empty: any; 0x1002 result 1 otherwise).
-- exchange_vehicle: a vehicle an inferior platform reports (plate + colour, the 809 identity), with its 0x1201
-- registration and its latest position (the map screen reads it without touching the positions).
-- exchange_position: its 0x1202 / 0x1203 positions. The primary key (vehicle, fix time) makes a repeated
-- position (a back-fill overlapping what came in real time, a re-sent batch) a no-op; the fix-time index serves
-- the time-range list. Positions arrive at most every few seconds per vehicle from a few platforms: one table,
-- kept FLEET_EXCHANGE_SUPERIOR_POSITION_DAYS by the superior service.
-- inferior_link_state: like exchange_link_state (migration 0045) for the links of an inferior platform.
-- exchange_message gains the platform kind: a frame of an inferior platform's links names
-- inferior_platform_id, a superior platform's names platform_id (exactly one of them). `direction` keeps its
-- meaning: 'up' is inferior to superior.
-- inferior_request: an inspection (0x9301) or a message (0x9302) an operator sends (state queued); the superior
-- service polls the table, sends it (state sent, with its SN and the link) and matches the answer (0x1301 /
-- 0x1302: state answered, with the latency from sending).
-- depends: 0047_exchange_requests

CREATE TABLE inferior_platform (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    name           text NOT NULL,
    user_id        bigint NOT NULL CHECK (user_id BETWEEN 0 AND 4294967295),
    password       text NOT NULL,
    centre_id      bigint NOT NULL CHECK (centre_id BETWEEN 0 AND 4294967295),
    version        text NOT NULL DEFAULT '2019' CHECK (version IN ('2011', '2019')),
    encrypted      boolean NOT NULL DEFAULT false,
    m1             bigint NOT NULL DEFAULT 0 CHECK (m1 BETWEEN 0 AND 4294967295),
    ia1            bigint NOT NULL DEFAULT 0 CHECK (ia1 BETWEEN 0 AND 4294967295),
    ic1            bigint NOT NULL DEFAULT 0 CHECK (ic1 BETWEEN 0 AND 4294967295),
    encrypt_key    bigint NOT NULL DEFAULT 0 CHECK (encrypt_key BETWEEN 0 AND 4294967295),
    allowed_hosts  jsonb NOT NULL DEFAULT '[]',
    enabled        boolean NOT NULL DEFAULT true,
    remark         text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CHECK (NOT encrypted OR m1 > 0)
);
CREATE UNIQUE INDEX inferior_platform_name_uniq ON inferior_platform (enterprise_id, name);
CREATE UNIQUE INDEX inferior_platform_user_id_uniq ON inferior_platform (user_id);  -- platform-wide (the login names it)

CREATE TABLE exchange_vehicle (
    id                    bigserial PRIMARY KEY,
    inferior_platform_id  bigint NOT NULL REFERENCES inferior_platform(id) ON DELETE CASCADE,
    enterprise_id         bigint NOT NULL REFERENCES enterprise(id),  -- the platform's, for the tenancy
    plate                 text NOT NULL,
    plate_colour          smallint NOT NULL,
    registered_at         timestamptz,        -- last 0x1201
    platform_code         text,               -- 0x1201 PLATFORM_ID
    producer_id           text,
    terminal_model        text,
    imei                  text,
    terminal_id           text,
    sim                   text,
    last_fix_at           timestamptz,
    last_received_at      timestamptz,
    last_lat              double precision,
    last_lng              double precision,
    last_speed_kmh        double precision,
    last_direction_deg    integer,
    last_altitude_m       integer,
    last_status           bigint,
    last_alarm            bigint,
    created_at            timestamptz NOT NULL DEFAULT now(),
    UNIQUE (inferior_platform_id, plate, plate_colour)
);
CREATE INDEX exchange_vehicle_enterprise ON exchange_vehicle (enterprise_id);

CREATE TABLE exchange_position (
    vehicle_id     bigint NOT NULL REFERENCES exchange_vehicle(id) ON DELETE CASCADE,
    fix_at         timestamptz NOT NULL,
    received_at    timestamptz NOT NULL DEFAULT now(),
    backfilled     boolean NOT NULL,   -- came in a 0x1203
    lat            double precision NOT NULL,
    lng            double precision NOT NULL,
    speed_kmh      double precision NOT NULL,
    direction_deg  integer NOT NULL,
    altitude_m     integer NOT NULL,
    mileage_km     double precision,
    status         bigint NOT NULL,
    alarm          bigint NOT NULL,
    PRIMARY KEY (vehicle_id, fix_at)
);
CREATE INDEX exchange_position_fix_at ON exchange_position (fix_at);

CREATE TABLE inferior_link_state (
    inferior_platform_id  bigint NOT NULL REFERENCES inferior_platform(id) ON DELETE CASCADE,
    link                  text NOT NULL CHECK (link IN ('main', 'sub')),
    state                 text NOT NULL,      -- down, connecting, up
    since                 timestamptz NOT NULL DEFAULT now(),
    peer                  text,
    last_heartbeat_at     timestamptz,
    sent_count            bigint NOT NULL DEFAULT 0,
    received_count        bigint NOT NULL DEFAULT 0,
    positions_count       bigint NOT NULL DEFAULT 0,  -- 0x1202 / 0x1203 positions received
    last_error            text,
    updated_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (inferior_platform_id, link)
);

ALTER TABLE exchange_message
    ALTER COLUMN platform_id DROP NOT NULL,
    ADD COLUMN inferior_platform_id bigint REFERENCES inferior_platform(id) ON DELETE CASCADE,
    ADD COLUMN platform_kind text NOT NULL DEFAULT 'superior' CHECK (platform_kind IN ('superior', 'inferior')),
    ADD CONSTRAINT exchange_message_one_platform CHECK (
        (platform_kind = 'superior' AND platform_id IS NOT NULL AND inferior_platform_id IS NULL)
        OR (platform_kind = 'inferior' AND inferior_platform_id IS NOT NULL AND platform_id IS NULL));
CREATE INDEX exchange_message_inferior_time ON exchange_message (inferior_platform_id, time)
    WHERE inferior_platform_id IS NOT NULL;

CREATE TABLE inferior_request (
    id                    bigserial PRIMARY KEY,
    inferior_platform_id  bigint NOT NULL REFERENCES inferior_platform(id) ON DELETE CASCADE,
    enterprise_id         bigint NOT NULL REFERENCES enterprise(id),
    kind                  text NOT NULL CHECK (kind IN ('inspection', 'message')),
    object_type           smallint NOT NULL,
    object_id             text NOT NULL,
    content               text NOT NULL,
    answer_minutes        integer,
    created_by            bigint,
    created_at            timestamptz NOT NULL DEFAULT now(),
    state                 text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'answered', 'failed')),
    link                  text,
    sn                    bigint,
    sent_at               timestamptz,
    answer                text,
    responder             text,
    answered_at           timestamptz,
    latency_ms            integer,
    error                 text
);
CREATE INDEX inferior_request_platform_state ON inferior_request (inferior_platform_id, state);

-- The list screens' relations (api/query/entities_inferior.py): each row carries its enterprise for the scope.
CREATE VIEW exchange_vehicle_view AS
SELECT v.id, v.inferior_platform_id, p.name AS platform_name, v.enterprise_id, v.plate, v.plate_colour,
       v.registered_at, v.platform_code, v.producer_id, v.terminal_model, v.imei, v.terminal_id, v.sim,
       v.last_fix_at, v.last_received_at, v.last_lat, v.last_lng, v.last_speed_kmh, v.last_direction_deg,
       v.last_altitude_m, v.last_status, v.last_alarm, v.created_at
FROM exchange_vehicle v JOIN inferior_platform p ON p.id = v.inferior_platform_id;

CREATE VIEW exchange_position_view AS
SELECT v.id::text || '-' || (extract(epoch FROM x.fix_at) * 1000)::bigint::text AS id, x.vehicle_id,
       v.inferior_platform_id, v.enterprise_id, v.plate, v.plate_colour, x.fix_at, x.received_at, x.backfilled,
       x.lat, x.lng, x.speed_kmh, x.direction_deg, x.altitude_m, x.mileage_km, x.status, x.alarm
FROM exchange_position x JOIN exchange_vehicle v ON v.id = x.vehicle_id;

CREATE VIEW inferior_request_view AS
SELECT r.id, r.inferior_platform_id, p.name AS platform_name, r.enterprise_id, r.kind, r.object_type, r.object_id,
       r.content, r.answer_minutes, r.created_by, r.created_at, r.state, r.link, r.sent_at, r.answer, r.responder,
       r.answered_at, r.latency_ms
FROM inferior_request r JOIN inferior_platform p ON p.id = r.inferior_platform_id;
