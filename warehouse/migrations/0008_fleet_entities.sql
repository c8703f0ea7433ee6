-- Vehicles, terminals, SIM cards, drivers and groups written through the generic entity routes
-- (api/query/fleet_entities.py): soft delete (record_state 1 normal, 0 deleted: the row
-- and its gps history stay; reads hide it), updated_at, the columns the forms edit, and unique
-- indexes among live rows named <table>_<column>_uniq (the API maps a clash back to the field, 409).
-- A terminal phone is unique across the whole installation (the gateway identifies a terminal by
-- it); the other keys are unique inside an enterprise.
-- Driver photos go to a small bytea table (they predate the one media store).
-- depends: 0005_entity_catalogues_and_audit

CREATE TABLE media (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    content_type   text NOT NULL,
    content        bytea NOT NULL,
    created_by     bigint,
    created_at     timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE car_group
    ADD COLUMN record_state smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    ADD COLUMN updated_at   timestamptz NOT NULL DEFAULT now();
CREATE UNIQUE INDEX car_group_name_uniq ON car_group (enterprise_id, name) WHERE record_state = 1;

ALTER TABLE driver
    ADD COLUMN record_state      smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    ADD COLUMN updated_at        timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN license_class     text,
    ADD COLUMN license_expire    text,     -- YYYY-MM-DD
    ADD COLUMN qualification_no  text,
    ADD COLUMN photo_id          bigint REFERENCES media(id);
CREATE UNIQUE INDEX driver_id_card_uniq ON driver (enterprise_id, id_card) WHERE record_state = 1;

ALTER TABLE car
    ADD COLUMN record_state  smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    ADD COLUMN updated_at    timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN grade         smallint CHECK (grade BETWEEN 1 AND 4),
    ADD COLUMN car_model_id  bigint REFERENCES car_model(id),
    ADD COLUMN car_type_id   bigint REFERENCES car_type(id);
ALTER TABLE car DROP CONSTRAINT car_vin_key;
CREATE UNIQUE INDEX car_vin_uniq ON car (enterprise_id, vin) WHERE record_state = 1;
CREATE UNIQUE INDEX car_plate_number_uniq ON car (enterprise_id, plate_number) WHERE record_state = 1;

ALTER TABLE device
    ADD COLUMN record_state        smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    ADD COLUMN updated_at          timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN device_producer_id  bigint REFERENCES device_producer(id),
    ADD COLUMN device_type_id      bigint REFERENCES device_type(id);
ALTER TABLE device DROP CONSTRAINT device_phone_key;
CREATE UNIQUE INDEX device_phone_uniq ON device (phone) WHERE record_state = 1;
-- Terminals the gateway registered on its own (unassigned) keep whatever serial they report.
CREATE UNIQUE INDEX device_device_sn_uniq ON device (enterprise_id, device_sn) WHERE record_state = 1 AND NOT unassigned;

ALTER TABLE sim
    ADD COLUMN record_state  smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    ADD COLUMN updated_at    timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN operator      smallint,  -- 1 China Mobile, 2 China Unicom, 3 China Telecom, 9 other
    ADD COLUMN expire_date   text;     -- YYYY-MM-DD
ALTER TABLE sim DROP CONSTRAINT sim_iccid_key;
CREATE UNIQUE INDEX sim_iccid_uniq ON sim (enterprise_id, iccid) WHERE record_state = 1;
CREATE UNIQUE INDEX sim_msisdn_uniq ON sim (enterprise_id, msisdn) WHERE record_state = 1;
CREATE UNIQUE INDEX sim_device_id_uniq ON sim (device_id) WHERE record_state = 1;  -- one SIM per terminal

-- A deleted vehicle leaves the live map and every vehicle list; its gps rows stay.
CREATE OR REPLACE VIEW car_view AS
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
LEFT JOIN driver dr ON dr.id = c.driver_id
WHERE c.record_state = 1;
