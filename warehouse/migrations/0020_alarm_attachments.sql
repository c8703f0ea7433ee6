-- Active-safety alarm attachments: files a terminal uploaded to the attachment server
-- (gateway/attachments.py, 0x1210-0x1212) are device_upload_file rows too, written by the streams step
-- streams/alarm_files.py from the 0x1212 uplink records: alarm_id (the alarm whose warn_uuid the upload
-- named; NULL when the alarm is gone), warn_uuid (the 32-char alarm uuid of 0x9208), file_name (as the
-- terminal named it). media_type also takes 3 text and 4 other (the attachment file types of 0x1211).
-- Idempotent: one row per object key (unique index of 0014), so a record delivered twice is one row.
-- depends: 0018_alarms

ALTER TABLE device_upload_file
    ADD COLUMN alarm_id bigint REFERENCES alarm(id) ON DELETE SET NULL,
    ADD COLUMN warn_uuid text,
    ADD COLUMN file_name text;
ALTER TABLE device_upload_file DROP CONSTRAINT device_upload_file_media_type_check;
ALTER TABLE device_upload_file ADD CONSTRAINT device_upload_file_media_type_check
    CHECK (media_type IN (0, 1, 2, 3, 4));
CREATE INDEX device_upload_file_warn_uuid ON device_upload_file (warn_uuid) WHERE warn_uuid IS NOT NULL;
CREATE INDEX device_upload_file_alarm ON device_upload_file (alarm_id) WHERE alarm_id IS NOT NULL;

CREATE OR REPLACE VIEW device_upload_file_view AS
SELECT f.id, f.object_key, f.resource_type, f.file_store_type, f.enterprise_id, f.biz_id, f.device_id,
       f.car_id, f.media_id, f.media_type, f.media_format, f.event_code, f.channel, f.lng, f.lat, f.fix_time,
       f.size, f.sha256, f.created_at, c.plate_number, d.device_name, d.phone AS device_phone,
       f.alarm_id, f.warn_uuid, f.file_name
FROM device_upload_file f
JOIN device d ON d.id = f.device_id
LEFT JOIN car c ON c.id = f.car_id;
