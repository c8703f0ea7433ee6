-- Active-safety attachment requests: the one-time alarm number each 0x9208 carries (streams/alarm_commands.py)
-- and the attachment server (gateway/attachments.py) accepts in a 0x1210 instead of the alarm's public
-- warn_uuid. Only the number's sha256 is kept (32 random bytes need no slow hash); a request is bound to
-- its alarm and to the device it was sent to, and accepted only before expires_at. An alarm may have several
-- outstanding requests (a 0x9208 sent again after a reconnect); a new request deletes its alarm's expired ones.
-- depends: 0018_alarms

CREATE TABLE alarm_attachment_request (
    id             bigserial PRIMARY KEY,
    alarm_id       bigint NOT NULL REFERENCES alarm(id) ON DELETE CASCADE,
    device_id      bigint NOT NULL REFERENCES device(id) ON DELETE CASCADE,
    number_sha256  bytea NOT NULL UNIQUE CHECK (length(number_sha256) = 32),
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL
);
CREATE INDEX alarm_attachment_request_alarm ON alarm_attachment_request (alarm_id);
CREATE INDEX alarm_attachment_request_expires ON alarm_attachment_request (expires_at);
