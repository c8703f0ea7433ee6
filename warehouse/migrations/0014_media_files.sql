-- Terminal media: one row per file a terminal uploaded (0x0801), the bytes in the media
-- store (fleet/media_store.py) under object_key. resource_type: 1 image, 2 video, 4 audio (console-spec
-- §3: below 4 previews as image/video, 4 is non-image media). file_store_type: 1 local files (served
-- from /file{objectKey}), 3 an S3-compatible store (/api/media/obs/download/{id}.json). biz_id is the
-- JT/T 808 event code (platform-spec §9) the console shows as bizType. A resent upload of the same
-- bytes (same device, media id and sha256) is the same row (the streams step inserts idempotently).
-- media.object_key: driver photos move onto the same store (content is kept for rows written before).
-- depends: 0012_open_platform

CREATE TABLE device_upload_file (
    id               bigserial PRIMARY KEY,
    object_key       text NOT NULL,
    resource_type    smallint NOT NULL,
    file_store_type  smallint NOT NULL DEFAULT 1,
    enterprise_id    bigint NOT NULL REFERENCES enterprise(id),
    biz_id           integer,
    device_id        bigint NOT NULL REFERENCES device(id),
    car_id           bigint REFERENCES car(id),
    media_id         bigint NOT NULL,
    media_type       smallint NOT NULL CHECK (media_type IN (0, 1, 2)),
    media_format     smallint NOT NULL,
    event_code       smallint NOT NULL,
    channel          smallint NOT NULL,
    lng              double precision,
    lat              double precision,
    fix_time         timestamptz,
    size             bigint NOT NULL,
    sha256           text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (device_id, media_id, sha256)
);
CREATE UNIQUE INDEX device_upload_file_object_key_uniq ON device_upload_file (object_key);
CREATE INDEX device_upload_file_tenant_time ON device_upload_file (enterprise_id, created_at DESC);
CREATE INDEX device_upload_file_car_time ON device_upload_file (car_id, created_at DESC);
CREATE INDEX device_upload_file_device_time ON device_upload_file (device_id, created_at DESC);

ALTER TABLE media ADD COLUMN object_key text;
ALTER TABLE media ALTER COLUMN content DROP NOT NULL;

-- What the evidence list (entity deviceUploadFile) reads: each file with its vehicle's plate and terminal.
CREATE VIEW device_upload_file_view AS
SELECT f.id, f.object_key, f.resource_type, f.file_store_type, f.enterprise_id, f.biz_id, f.device_id,
       f.car_id, f.media_id, f.media_type, f.media_format, f.event_code, f.channel, f.lng, f.lat, f.fix_time,
       f.size, f.sha256, f.created_at, c.plate_number, d.device_name, d.phone AS device_phone
FROM device_upload_file f
JOIN device d ON d.id = f.device_id
LEFT JOIN car c ON c.id = f.car_id;
