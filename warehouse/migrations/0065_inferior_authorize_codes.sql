-- fleetwatch as a JT/T 809 superior platform (platform-spec §2 inferiorPlatform): an inferior platform's latest
-- time-limited authorisation codes (0x1700 / 0x1701 UP_AUTHORIZE_MSG_STARTUP, JT/T 1078-2016 §8.1): the platform
-- id it reported (BYTE[11]), AUTHORIZE_CODE_1 (for its home region's superior) and AUTHORIZE_CODE_2 (for a
-- cross-region one), and when they arrived. Written by the superior service (exchange/superior/service.py), read on
-- the inferiorPlatform screen by the holders of inferiorPlatform:superior; never written through the API.
-- depends: 0048_inferior_platforms

ALTER TABLE inferior_platform ADD COLUMN authorize_platform_code text, ADD COLUMN authorize_code_1 text,
    ADD COLUMN authorize_code_2 text, ADD COLUMN authorize_reported_at timestamptz;
