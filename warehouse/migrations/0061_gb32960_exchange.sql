-- GB/T 32960 data exchange, fleetwatch forwarding to superior platforms (platform-spec §2 "Data exchange": the
-- gb32960 exchange's superiorPlatform and car; GB/T 32960.3-2016 §7.5 platform login / logout, §7.2 real-time
-- and back-filled data; exchange/gb32960, exchange/README.md).
--
-- gb32960_superior_platform: one superior platform a root enterprise forwards its new-energy vehicles' data to.
-- `username` (12 bytes) / `password` (20 bytes) / `encryption` (the login's encryption rule: 1 none, 2 RSA,
-- 3 AES-128) are what the platform login 0x05 carries; `password` is kept in clear because the login sends it
-- (the API never returns it). `version`: the framing of every frame sent, 2016 (`##`) or 2025 (`$$`).
-- gb32960_exchange_car: which vehicles a platform forwards (their real-time data relayed as received); the
-- console's gb32960 car screen (enterprise_id: whose row it is, the enterprise that added it).
-- gb32960_link_state: one row per platform, written by the link service (fleet exchange).
-- gb32960_inferior_platform: a platform that relays its vehicles' data to us over GB/T 32960 (platform-spec §2,
-- the gb32960 exchange's inferiorPlatform): the GB gateway (7617) accepts its platform login 0x05 with this
-- username and password, then takes real-time 0x02 / back-filled 0x03 frames of any VIN of a vehicle of the
-- platform's enterprise tree (gateway/gb/connection.py). The username names the account: unique.
-- depends: 0049_gb32960_state

CREATE TABLE gb32960_superior_platform (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    name           text NOT NULL,
    host           text NOT NULL,
    port           integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
    username       text NOT NULL CHECK (octet_length(username) BETWEEN 1 AND 12),
    password       text NOT NULL CHECK (octet_length(password) BETWEEN 1 AND 20),
    encryption     smallint NOT NULL DEFAULT 1 CHECK (encryption IN (1, 2, 3)),
    version        text NOT NULL DEFAULT '2016' CHECK (version IN ('2016', '2025')),
    enabled        boolean NOT NULL DEFAULT true,
    remark         text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX gb32960_superior_platform_name_uniq ON gb32960_superior_platform (enterprise_id, name);

CREATE TABLE gb32960_exchange_car (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    platform_id    bigint NOT NULL REFERENCES gb32960_superior_platform(id) ON DELETE CASCADE,
    car_id         bigint NOT NULL REFERENCES car(id) ON DELETE CASCADE,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX gb32960_exchange_car_platform_car_uniq ON gb32960_exchange_car (platform_id, car_id);
CREATE INDEX gb32960_exchange_car_car ON gb32960_exchange_car (car_id);

CREATE TABLE gb32960_inferior_platform (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    name           text NOT NULL,
    username       text NOT NULL CHECK (octet_length(username) BETWEEN 1 AND 12),
    password       text NOT NULL CHECK (octet_length(password) BETWEEN 1 AND 20),
    enabled        boolean NOT NULL DEFAULT true,
    remark         text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX gb32960_inferior_platform_username_uniq ON gb32960_inferior_platform (username);
CREATE UNIQUE INDEX gb32960_inferior_platform_name_uniq ON gb32960_inferior_platform (enterprise_id, name);

CREATE TABLE gb32960_link_state (
    platform_id        bigint PRIMARY KEY REFERENCES gb32960_superior_platform(id) ON DELETE CASCADE,
    state              text NOT NULL,
    since              timestamptz NOT NULL,
    last_heartbeat_at  timestamptz,
    sent               bigint NOT NULL DEFAULT 0,
    backfilled         bigint NOT NULL DEFAULT 0,
    skipped            bigint NOT NULL DEFAULT 0,
    last_error         text,
    updated_at         timestamptz NOT NULL DEFAULT now()
);

-- The console's screens read these (api/query/entities_gb32960_exchange.py): each platform with its link state
-- (no password), each exchanged vehicle with its plate, VIN and its platform's link state.
CREATE VIEW gb32960_superior_platform_view AS
SELECT p.id, p.enterprise_id, p.name, p.host, p.port, p.username, p.encryption, p.version, p.enabled, p.remark,
       p.created_at, p.updated_at, COALESCE(s.state, 'disconnected') AS link_state, s.since AS link_since,
       s.last_heartbeat_at, COALESCE(s.sent, 0) AS sent, COALESCE(s.backfilled, 0) AS backfilled,
       COALESCE(s.skipped, 0) AS skipped, s.last_error
FROM gb32960_superior_platform p LEFT JOIN gb32960_link_state s ON s.platform_id = p.id;

CREATE VIEW gb32960_exchange_car_view AS
SELECT x.id, x.enterprise_id, x.platform_id, p.name AS platform_name, p.version, x.car_id, c.plate_number, c.vin,
       x.created_at, COALESCE(s.state, 'disconnected') AS link_state, s.since AS link_since
FROM gb32960_exchange_car x
JOIN gb32960_superior_platform p ON p.id = x.platform_id
JOIN car c ON c.id = x.car_id
LEFT JOIN gb32960_link_state s ON s.platform_id = x.platform_id;
