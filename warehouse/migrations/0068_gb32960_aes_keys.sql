-- AES-128 data units on GB/T 32960 platform links (platform-spec §2 "Data exchange", the gb32960 exchange;
-- GB/T 32960.3-2016 table 2, encryption 0x03; protocols/gb32960/cipher.py: CBC with PKCS#7 padding).
--
-- The standard leaves the key to the two platforms: `aes_key` / `aes_iv` are the 16-byte key and IV agreed with
-- that platform, as 32 lowercase hex digits each, both set or neither. Kept in clear, as the password is, because
-- the link itself uses them; the API takes them and never returns them (the views say only whether a key is set).
-- A superior platform whose login's encryption rule is 3 (AES-128) is linked only with a key (the API refuses
-- the rule without one; the link service names a row that has none); its real-time and back-filled data units
-- are sent encrypted. An inferior platform with a key may send its data units encrypted: the GB gateway decrypts
-- them before anything else reads them; a frame that does not decrypt is refused (0x02) and named on its row
-- (last_error `undecryptable`).
-- depends: 0067_inferior_video_hosts

ALTER TABLE gb32960_superior_platform
    ADD COLUMN aes_key text CHECK (aes_key ~ '^[0-9a-f]{32}$'),
    ADD COLUMN aes_iv  text CHECK (aes_iv ~ '^[0-9a-f]{32}$'),
    ADD CONSTRAINT gb32960_superior_platform_aes_pair CHECK ((aes_key IS NULL) = (aes_iv IS NULL));
ALTER TABLE gb32960_inferior_platform
    ADD COLUMN aes_key text CHECK (aes_key ~ '^[0-9a-f]{32}$'),
    ADD COLUMN aes_iv  text CHECK (aes_iv ~ '^[0-9a-f]{32}$'),
    ADD CONSTRAINT gb32960_inferior_platform_aes_pair CHECK ((aes_key IS NULL) = (aes_iv IS NULL));

CREATE OR REPLACE VIEW gb32960_superior_platform_view AS
SELECT p.id, p.enterprise_id, p.name, p.host, p.port, p.username, p.encryption, p.version, p.enabled, p.remark,
       p.created_at, p.updated_at, COALESCE(s.state, 'disconnected') AS link_state, s.since AS link_since,
       s.last_heartbeat_at, COALESCE(s.sent, 0) AS sent, COALESCE(s.backfilled, 0) AS backfilled,
       COALESCE(s.skipped, 0) AS skipped, s.last_error, p.aes_key IS NOT NULL AS aes_key_set
FROM gb32960_superior_platform p LEFT JOIN gb32960_link_state s ON s.platform_id = p.id;

CREATE OR REPLACE VIEW gb32960_inferior_platform_view AS
SELECT p.id, p.enterprise_id, p.name, p.username, p.enabled, p.remark, p.created_at, p.updated_at,
       COALESCE(s.link_state, 'offline') AS link_state, s.link_since, s.peer, s.last_frame_at,
       COALESCE(s.logins, 0) AS logins, COALESCE(s.frames, 0) AS frames, COALESCE(s.refused, 0) AS refused,
       COALESCE(s.vehicles, 0) AS vehicles, s.last_error, s.last_error_at, p.aes_key IS NOT NULL AS aes_key_set
FROM gb32960_inferior_platform p
LEFT JOIN LATERAL (
    SELECT CASE WHEN bool_or(l.live) THEN 'online' ELSE 'offline' END AS link_state,
           CASE WHEN bool_or(l.live) THEN min(l.since) FILTER (WHERE l.live) ELSE max(l.since) END AS link_since,
           (array_agg(l.peer ORDER BY l.live DESC, l.since DESC))[1] AS peer,
           max(l.last_frame_at) AS last_frame_at, sum(l.logins)::bigint AS logins, sum(l.frames)::bigint AS frames,
           sum(l.refused)::bigint AS refused, max(l.vehicles) AS vehicles,
           (array_agg(l.last_error ORDER BY l.last_error_at DESC NULLS LAST))[1] AS last_error,
           max(l.last_error_at) AS last_error_at
    FROM (SELECT x.*, x.state = 'online' AND x.updated_at > now() - interval '3 minutes' AS live
          FROM gb32960_inferior_link_state x WHERE x.platform_id = p.id) l
    HAVING count(*) > 0
) s ON true;
