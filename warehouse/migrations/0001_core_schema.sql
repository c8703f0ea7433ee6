-- fleetwatch core schema. Forward-only; applied by yoyo (warehouse/migrate.py).
-- Naming: snake_case columns; the API maps them to the spec's camelCase.

CREATE TABLE enterprise (
    id          bigserial PRIMARY KEY,
    parent_id   bigint REFERENCES enterprise(id),
    -- materialised path of ids, '/1/' for a root, '/1/3/' for its subsidiary 3:
    -- isParent queries use a prefix match on it (platform-spec §6).
    path        text NOT NULL DEFAULT '',
    name        text NOT NULL,
    short_name  text NOT NULL,
    type        smallint NOT NULL DEFAULT 3,
    state       smallint NOT NULL DEFAULT 1,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX enterprise_path_idx ON enterprise (path text_pattern_ops);

CREATE TABLE permission (
    code        text PRIMARY KEY,
    name        text NOT NULL,
    actions     text[] NOT NULL DEFAULT '{}'
);

CREATE TABLE role (
    id            bigserial PRIMARY KEY,
    enterprise_id bigint NOT NULL REFERENCES enterprise(id),
    name          text NOT NULL,
    state         smallint NOT NULL DEFAULT 1,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE role_permission (
    role_id          bigint NOT NULL REFERENCES role(id) ON DELETE CASCADE,
    permission_code  text NOT NULL REFERENCES permission(code),
    actions          text[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (role_id, permission_code)
);

CREATE TABLE app_user (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    user_name      text NOT NULL UNIQUE,
    password_hash  text NOT NULL,            -- argon2id
    name           text,
    nick_name      text,
    email          text,
    phone          text,
    avatar         text,
    profile        jsonb NOT NULL DEFAULT '{}',
    state          smallint NOT NULL DEFAULT 1,
    created_at     timestamptz NOT NULL DEFAULT now(),
    password_changed_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE user_role (
    user_id  bigint NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
    role_id  bigint NOT NULL REFERENCES role(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, role_id)
);

CREATE TABLE car_group (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    parent_id      bigint REFERENCES car_group(id),
    name           text NOT NULL,
    type           smallint NOT NULL DEFAULT 1,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX car_group_enterprise_idx ON car_group (enterprise_id);

CREATE TABLE driver (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    name           text NOT NULL,
    phone          text,
    id_card        text,
    license_no     text,
    state          smallint NOT NULL DEFAULT 1,
    created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE car (
    id                bigserial PRIMARY KEY,
    enterprise_id     bigint NOT NULL REFERENCES enterprise(id),
    group_id          bigint REFERENCES car_group(id),
    plate_number      text NOT NULL,
    plate_color       smallint NOT NULL DEFAULT 2,
    vin               text UNIQUE,
    car_type          smallint NOT NULL DEFAULT 1,   -- 1 fuel, 2 new-energy, 3 hybrid
    icon_id           smallint NOT NULL DEFAULT 1,
    master_device_id  bigint,                        -- FK added after device exists
    driver_id         bigint REFERENCES driver(id),
    state             smallint NOT NULL DEFAULT 1,
    created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX car_enterprise_idx ON car (enterprise_id);

CREATE TABLE device (
    id                      bigserial PRIMARY KEY,
    enterprise_id           bigint NOT NULL REFERENCES enterprise(id),
    car_id                  bigint REFERENCES car(id),
    phone                   text NOT NULL UNIQUE,   -- JT/T 808 header phone (SIM number), digits
    device_sn               text NOT NULL,          -- terminal id from registration
    device_name             text,
    protocol                text NOT NULL DEFAULT 'jt808',
    protocol_version        text NOT NULL DEFAULT '2013',
    video_protocol_version  text,
    manufacturer_id         text,
    terminal_model          text,
    video_channel           text NOT NULL DEFAULT '',  -- comma-separated channel numbers
    talk_channel            text NOT NULL DEFAULT '',
    has_video               smallint NOT NULL DEFAULT 0,
    has_photo               smallint NOT NULL DEFAULT 0,
    has_microphone          smallint NOT NULL DEFAULT 0,
    auth_code               text,
    state                   smallint NOT NULL DEFAULT 0,  -- DeviceState
    biz_state               smallint NOT NULL DEFAULT 4,  -- BizState
    acc                     smallint NOT NULL DEFAULT 0,
    online_time             timestamptz,
    offline_time            timestamptz,
    unassigned              boolean NOT NULL DEFAULT false,
    created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX device_enterprise_idx ON device (enterprise_id);
CREATE INDEX device_car_idx ON device (car_id);
ALTER TABLE car ADD CONSTRAINT car_master_device_fk FOREIGN KEY (master_device_id) REFERENCES device(id);

CREATE TABLE sim (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    iccid          text UNIQUE,
    msisdn         text NOT NULL,
    device_id      bigint REFERENCES device(id),
    state          smallint NOT NULL DEFAULT 1,
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- Last known position per device, kept current by the positions agent (upsert, newer fix wins).
CREATE TABLE device_last (
    device_id      bigint PRIMARY KEY REFERENCES device(id),
    car_id         bigint,
    enterprise_id  bigint NOT NULL,
    fix_at         timestamptz NOT NULL,
    lng            double precision NOT NULL,
    lat            double precision NOT NULL,
    altitude_m     real,
    speed_kmh      real,
    direction_deg  smallint,
    mileage_km     double precision,
    fuel_l         real,
    alarm_flags    bigint NOT NULL DEFAULT 0,
    status_flags   bigint NOT NULL DEFAULT 0,
    extras         jsonb NOT NULL DEFAULT '{}',
    received_at    timestamptz NOT NULL DEFAULT now()
);

-- Online / offline log, idempotent on (device, time, state).
CREATE TABLE device_online_log (
    device_id      bigint NOT NULL,
    at             timestamptz NOT NULL,
    state          smallint NOT NULL,       -- 1 online, 0 offline
    enterprise_id  bigint NOT NULL,
    reason         text,
    gateway_id     text,
    connection_id  text,
    PRIMARY KEY (device_id, at, state)
);

-- ACC on/off transitions (status bit 0), idempotent on (device, create_time).
CREATE TABLE acc_state_log (
    device_id      bigint NOT NULL,
    create_time    timestamptz NOT NULL,
    state          smallint NOT NULL,       -- 1 on, 0 off
    car_id         bigint,
    enterprise_id  bigint NOT NULL,
    lng            double precision,
    lat            double precision,
    PRIMARY KEY (device_id, create_time)
);

-- Business state transitions (platform-spec §4), idempotent on (device, create_time).
CREATE TABLE biz_state_log (
    device_id      bigint NOT NULL,
    create_time    timestamptz NOT NULL,
    state          smallint NOT NULL,
    car_id         bigint,
    enterprise_id  bigint NOT NULL,
    PRIMARY KEY (device_id, create_time)
);

-- Positions. Idempotent on (device, fix time). Partitioned by fix_at: a TimescaleDB hypertable when
-- the extension is installed, otherwise native daily range partitions (created ahead by
-- warehouse.partitions) with a DEFAULT partition so no row is ever refused.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb') THEN
    CREATE EXTENSION IF NOT EXISTS timescaledb;
    EXECUTE $t$
      CREATE TABLE gps (
        device_id bigint NOT NULL, fix_at timestamptz NOT NULL, car_id bigint, enterprise_id bigint NOT NULL,
        lng double precision NOT NULL, lat double precision NOT NULL, altitude_m real, speed_kmh real,
        direction_deg smallint, mileage_km double precision, fuel_l real,
        alarm_flags bigint NOT NULL DEFAULT 0, status_flags bigint NOT NULL DEFAULT 0,
        extras jsonb NOT NULL DEFAULT '{}', received_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (device_id, fix_at))$t$;
    PERFORM create_hypertable('gps', 'fix_at', chunk_time_interval => interval '1 day');
  ELSE
    EXECUTE $t$
      CREATE TABLE gps (
        device_id bigint NOT NULL, fix_at timestamptz NOT NULL, car_id bigint, enterprise_id bigint NOT NULL,
        lng double precision NOT NULL, lat double precision NOT NULL, altitude_m real, speed_kmh real,
        direction_deg smallint, mileage_km double precision, fuel_l real,
        alarm_flags bigint NOT NULL DEFAULT 0, status_flags bigint NOT NULL DEFAULT 0,
        extras jsonb NOT NULL DEFAULT '{}', received_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (device_id, fix_at)) PARTITION BY RANGE (fix_at)$t$;
    EXECUTE 'CREATE TABLE gps_default PARTITION OF gps DEFAULT';
    EXECUTE 'CREATE INDEX gps_fix_at_brin ON gps USING brin (fix_at)';
  END IF;
END $$;

-- The vehicle view the console's tree and queries read (platform-spec §3 "Vehicle view row").
CREATE VIEW car_view AS
SELECT c.id                 AS car_id,
       c.enterprise_id,
       e.path               AS enterprise_path,
       c.group_id,
       c.plate_number,
       c.plate_color,
       c.vin,
       c.icon_id,
       c.master_device_id,
       d.device_sn          AS master_device_sn,
       d.phone              AS master_device_phone,
       d.biz_state          AS master_device_biz_state,
       d.state              AS master_device_state,
       d.online_time        AS last_online_time,
       d.has_video, d.has_photo, d.has_microphone,
       d.video_channel, d.talk_channel,
       c.driver_id,
       dr.name              AS driver_name,
       c.created_at
FROM car c
JOIN enterprise e ON e.id = c.enterprise_id
LEFT JOIN device d ON d.id = c.master_device_id
LEFT JOIN driver dr ON dr.id = c.driver_id;
