-- Refused registrations and authentications of terminals whose phone no device has (gateway/unknown_terminals.py,
-- gateway/README.md). Such a phone belongs to no enterprise, so its 0x0100 / 0x0102 cannot go into an
-- enterprise's message log; this record lets the platform's own administrators (root enterprises) see why a
-- terminal does not come online and register it (api/query/entities_refused.py).
--
-- Bounded: one row per phone (the gateway upserts: attempts counted, first / last seen kept), at most
-- FLEET_GATEWAY_UNKNOWN_REFUSALS_MAX_ROWS rows (the least recently seen are deleted after each write), so a
-- flood of random phones cannot grow it without limit. The gateway writes it in the background, never on a
-- frame's path.
-- depends: 0037_message_log_covering_index

CREATE TABLE refused_registration (
    id               bigserial PRIMARY KEY,
    phone            text NOT NULL UNIQUE,        -- canonical (fleet/phones.py); as sent when it is not a phone
    msg_id           integer NOT NULL,            -- the last refused message: 0x0100 or 0x0102
    result           smallint NOT NULL,           -- what the terminal was told (0x8100 result or 0x8001 result)
    reason           text NOT NULL,               -- unknown_phone, invalid_phone
    terminal_id      text NOT NULL DEFAULT '',    -- from the last 0x0100 (kept across later 0x0102)
    manufacturer_id  text NOT NULL DEFAULT '',
    terminal_model   text NOT NULL DEFAULT '',
    plate_number     text NOT NULL DEFAULT '',
    plate_color      smallint,
    imei             text NOT NULL DEFAULT '',    -- from the last 2019 0x0102
    protocol_version text NOT NULL DEFAULT '',
    peer             text NOT NULL DEFAULT '',    -- source address (host:port) of the last attempt
    gateway_id       text NOT NULL DEFAULT '',
    first_seen       timestamptz NOT NULL,
    last_seen        timestamptz NOT NULL,
    attempts         bigint NOT NULL DEFAULT 1
);
CREATE INDEX refused_registration_last_seen_idx ON refused_registration (last_seen DESC);

-- What the API lists: one copy per root enterprise (the platform's own), so the generic tenant scope shows the
-- rows to a root enterprise's users only; a phone registered since (an active device has it) is left out.
CREATE VIEW refused_registration_view AS
SELECT r.*, e.id AS enterprise_id
FROM refused_registration r
JOIN enterprise e ON e.parent_id IS NULL
WHERE NOT EXISTS (SELECT 1 FROM device d WHERE d.phone = r.phone AND d.record_state = 1);
