-- Logins of GB/T 32960 inferior platforms with a username no platform has (platform-spec §2, the gb32960 exchange's
-- inferiorPlatform; GB/T 32960.3-2016 §7.5 platform login 0x05): one row per (username as received, source
-- address), its attempts added up, first and last time and the gateway that saw the latest (gateway/gb/
-- inferior_links.py gathers them, the GB gateway writes them with its link state). No enterprise owns such a row:
-- the root enterprise's administrators read them (GET /api/exchange/gb32960/unknownLogins.json). The writer keeps
-- the 1,000 latest (warehouse/queries/gb_vehicles.py).
-- depends: 0062_gb32960_inferior_link

CREATE TABLE gb32960_unknown_login (
    username    text NOT NULL,
    address     text NOT NULL,
    gateway_id  text NOT NULL,
    first_at    timestamptz NOT NULL,
    last_at     timestamptz NOT NULL,
    attempts    bigint NOT NULL CHECK (attempts > 0),
    PRIMARY KEY (username, address)
);
CREATE INDEX gb32960_unknown_login_last ON gb32960_unknown_login (last_at DESC);
