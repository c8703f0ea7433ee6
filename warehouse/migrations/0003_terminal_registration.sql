-- Terminal registration identity: what a terminal reported at its first registration,
-- so a re-registration can prove it is the same terminal (exact terminal id, manufacturer, model).
-- NULL while the terminal holds no code, and for codes issued before this migration: such a terminal
-- keeps authenticating with its code, but re-registers only after a de-registration (0x0003) or an
-- administrator's reset (POST /api/device/{id}/resetRegistration.json).
-- depends: 0002_api_auth

ALTER TABLE device
    ADD COLUMN registered_terminal_id     text,
    ADD COLUMN registered_manufacturer_id text,
    ADD COLUMN registered_terminal_model  text,
    ADD COLUMN registered_at              timestamptz;
