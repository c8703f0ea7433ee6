-- Terminal identity on port 7611: what an administrator expects a terminal to report, and the
-- registration policy a regulated operator chooses for its enterprise (gateway/devices.py, gateway/README.md).
--
-- device.expected_terminal_id / expected_imei: recorded before the terminal first registers (device form);
--   a 0x0100 whose terminal id differs, or a 0x0102 whose IMEI differs (or carries none), is refused.
-- device.registered_imei: the IMEI of the first authentication that carried one (policy require_imei
--   compares later ones with it when no expected IMEI was recorded); cleared with the registration.
-- enterprise_registration_policy: no row is today's behaviour (no IMEI required, no approval).
--   require_imei: a 0x0102 must carry the recorded IMEI (2019 terminals).
--   approve_reregistration: a re-registration of a device online, or online within approval_window_min
--   minutes, waits for an administrator (registration_request), instead of replacing the auth code.
-- registration_request: one pending or approved request per device at a time; approve lets the next
--   matching registration through once (used), refuse keeps the terminal out; a request not decided, or
--   an approval not used, within max(approval_window_min, 10) minutes expires.
-- depends: 0030_reports

ALTER TABLE device
    ADD COLUMN expected_terminal_id text,
    ADD COLUMN expected_imei        text,
    ADD COLUMN registered_imei      text;

CREATE TABLE enterprise_registration_policy (
    enterprise_id           bigint PRIMARY KEY REFERENCES enterprise(id),
    require_imei            boolean NOT NULL DEFAULT false,
    approve_reregistration  boolean NOT NULL DEFAULT false,
    approval_window_min     integer NOT NULL DEFAULT 10 CHECK (approval_window_min BETWEEN 0 AND 10080),
    updated_at              timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE registration_request (
    id               bigserial PRIMARY KEY,
    enterprise_id    bigint NOT NULL REFERENCES enterprise(id),
    device_id        bigint NOT NULL REFERENCES device(id),
    phone            text NOT NULL,
    terminal_id      text NOT NULL,
    manufacturer_id  text NOT NULL,
    terminal_model   text NOT NULL,
    peer             text,
    state            text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'refused', 'used', 'expired')),
    requested_at     timestamptz NOT NULL DEFAULT now(),
    decided_at       timestamptz,
    decided_by       bigint,
    decided_by_name  text
);
CREATE UNIQUE INDEX registration_request_open_idx ON registration_request (device_id)
    WHERE state IN ('pending', 'approved');
CREATE INDEX registration_request_enterprise_idx ON registration_request (enterprise_id, requested_at DESC);
