-- GB/T 32960 inferior platforms' link state and frame log (platform-spec §2 "Data exchange": the gb32960 exchange's
-- inferiorPlatform; GB/T 32960.3-2016 §7.5 platform login / logout; gateway/gb/inferior_links.py).
--
-- gb32960_inferior_link_state: one row per (platform, GB gateway process), written by that gateway every
-- FLEET_GB_GATEWAY_INFERIOR_LINK_FLUSH_S (never per frame): in the cluster topology several gateways may each
-- hold a session of the same platform (or one after another), so each owns its row and none overwrites another's
-- counters; the view below aggregates them. `state` online / offline with `since`; `peer` the platform's address;
-- `last_frame_at` its last frame; `logins`, `frames` (real-time 0x02 and back-filled 0x03 relayed) and `refused`
-- (logins refused) are totals of that gateway; `vehicles` the VINs relayed during its latest session there;
-- `last_error` / `last_error_at` the latest refusal (wrong password, platform disabled) or error. A gateway
-- refreshes `updated_at` of its online rows at every flush, so a row of a gateway that died (kill -9, no
-- offline written) reads offline once it is older than three minutes (the view's rule).
-- exchange_message gains a third platform kind, gb32960_inferior, naming gb32960_inferior_platform_id: the
-- platform login 0x05 (decoded without its password, never its bytes), logout 0x06 and
-- their answers (a refusal's answer carrying the reason), on link 'main' (a GB platform has one connection).
-- depends: 0061_gb32960_exchange

CREATE TABLE gb32960_inferior_link_state (
    platform_id    bigint NOT NULL REFERENCES gb32960_inferior_platform(id) ON DELETE CASCADE,
    gateway_id     text NOT NULL,
    state          text NOT NULL CHECK (state IN ('online', 'offline')),
    since          timestamptz NOT NULL,
    peer           text,
    last_frame_at  timestamptz,
    logins         bigint NOT NULL DEFAULT 0,
    frames         bigint NOT NULL DEFAULT 0,
    refused        bigint NOT NULL DEFAULT 0,
    vehicles       integer NOT NULL DEFAULT 0,
    last_error     text,
    last_error_at  timestamptz,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform_id, gateway_id)
);

ALTER TABLE exchange_message
    ADD COLUMN gb32960_inferior_platform_id bigint REFERENCES gb32960_inferior_platform(id) ON DELETE CASCADE,
    DROP CONSTRAINT exchange_message_platform_kind_check,
    ADD CONSTRAINT exchange_message_platform_kind_check
        CHECK (platform_kind IN ('superior', 'inferior', 'gb32960_inferior')),
    DROP CONSTRAINT exchange_message_one_platform,
    ADD CONSTRAINT exchange_message_one_platform CHECK (
        (platform_kind = 'superior' AND platform_id IS NOT NULL AND inferior_platform_id IS NULL
             AND gb32960_inferior_platform_id IS NULL)
        OR (platform_kind = 'inferior' AND inferior_platform_id IS NOT NULL AND platform_id IS NULL
             AND gb32960_inferior_platform_id IS NULL)
        OR (platform_kind = 'gb32960_inferior' AND gb32960_inferior_platform_id IS NOT NULL AND platform_id IS NULL
             AND inferior_platform_id IS NULL));
CREATE INDEX exchange_message_gb32960_inferior_time ON exchange_message (gb32960_inferior_platform_id, time)
    WHERE gb32960_inferior_platform_id IS NOT NULL;

-- A GB platform login (0x05) carries its password in clear: whatever a writer does, the view never shows its
-- `password` (top level or in `body`, gateway/gb/connection.py's shape) nor the frame's bytes, as for a JT/T 809
-- 0x1001.
CREATE OR REPLACE VIEW exchange_message_view AS
SELECT m.id, m.platform_id, COALESCE(p.name, i.name, g.name) AS platform_name,
       COALESCE(p.enterprise_id, i.enterprise_id, g.enterprise_id) AS enterprise_id, m.time, m.direction, m.link,
       m.msg_id, m.data_type,
       CASE WHEN m.msg_id = 4097 THEN m.decoded - 'password'
            WHEN m.platform_kind = 'gb32960_inferior' AND m.msg_id = 5
            THEN (m.decoded - 'password') #- '{body,password}' ELSE m.decoded END AS decoded,
       CASE WHEN m.msg_id = 4097 OR (m.platform_kind = 'gb32960_inferior' AND m.msg_id = 5 AND m.direction = 'up')
            THEN '' ELSE m.raw_hex END AS raw_hex,
       m.platform_kind, m.inferior_platform_id, m.gb32960_inferior_platform_id
FROM exchange_message m
LEFT JOIN superior_platform p ON p.id = m.platform_id
LEFT JOIN inferior_platform i ON i.id = m.inferior_platform_id
LEFT JOIN gb32960_inferior_platform g ON g.id = m.gb32960_inferior_platform_id;
CREATE OR REPLACE VIEW exchange_upstream_view AS SELECT * FROM exchange_message_view WHERE direction = 'up';
CREATE OR REPLACE VIEW exchange_downstream_view AS SELECT * FROM exchange_message_view WHERE direction = 'down';

-- The inferiorPlatform screen's relation (api/query/entities_gb32960_exchange.py): each platform (no password)
-- with its link aggregated over the gateways' rows: online when any gateway holds a live session (since: the
-- earliest such login; peer: that session's), else offline since the latest change; totals summed; vehicles
-- the most any gateway's latest session relayed; the latest error of any gateway.
CREATE VIEW gb32960_inferior_platform_view AS
SELECT p.id, p.enterprise_id, p.name, p.username, p.enabled, p.remark, p.created_at, p.updated_at,
       COALESCE(s.link_state, 'offline') AS link_state, s.link_since, s.peer, s.last_frame_at,
       COALESCE(s.logins, 0) AS logins, COALESCE(s.frames, 0) AS frames, COALESCE(s.refused, 0) AS refused,
       COALESCE(s.vehicles, 0) AS vehicles, s.last_error, s.last_error_at
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
