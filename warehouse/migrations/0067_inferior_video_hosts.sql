-- fleetwatch as a JT/T 809 superior platform watching an inferior platform's video (platform-spec §2
-- inferiorPlatform, car; JT/T 1078-2016 §8.2, §8.5): where our media server may be sent.
--
-- An inferior's 0x1801 / 0x1A01 names the address our media server then fetches (SERVER_IP / SERVER_PORT). Taken
-- on trust that would let any platform holding a login make the media server reach any host our network reaches
-- (an internal admin port, a metadata service). inferior_platform.video_hosts: the addresses its answers may name,
-- IP addresses, CIDR networks or host names (compared exactly); empty: only the address its main link comes from.
-- An answer naming any other address is refused (exchange/superior/video.py): the request fails, the platform is
-- told 0x9802.
--
-- exchange_video_pull.error becomes a code the console translates (it was English words): no_code (the platform
-- reported no AUTHORIZE_CODE_1), media_unavailable (our media server refused the registration), address_refused
-- (the answer named an address outside video_hosts; server_ip / server_port keep what it named), stopped (ended by
-- the operator), platform_disabled (the platform was disabled while we pulled its video: the stream was closed).
-- A failure with a RESULT other than 0 names no code: the result says it. The list view shows the address
-- answered.
-- depends: 0066_exchange_video_pull

ALTER TABLE inferior_platform ADD COLUMN video_hosts jsonb NOT NULL DEFAULT '[]';

UPDATE exchange_video_pull SET error = CASE error
    WHEN 'no authorisation code (0x1701)' THEN 'no_code'
    WHEN 'media server unavailable' THEN 'media_unavailable'
    WHEN 'stopped by the operator' THEN 'stopped'
    ELSE error END
WHERE error IS NOT NULL;
UPDATE exchange_video_pull SET error = NULL
WHERE error IS NOT NULL
  AND error NOT IN ('no_code', 'media_unavailable', 'address_refused', 'stopped', 'platform_disabled');
ALTER TABLE exchange_video_pull ADD CONSTRAINT exchange_video_pull_error_code
    CHECK (error IN ('no_code', 'media_unavailable', 'address_refused', 'stopped', 'platform_disabled'));

CREATE OR REPLACE VIEW exchange_video_pull_view AS
SELECT r.id, r.inferior_platform_id, p.name AS platform_name, r.enterprise_id, r.vehicle_id, v.plate,
       v.plate_colour, r.kind, r.channel, r.av_type, r.start_time, r.end_time, r.stream_type, r.mem_type,
       CASE WHEN r.state IN ('queued', 'sent') AND r.answered_at IS NULL AND r.deadline <= now() THEN 'expired'
            ELSE r.state END AS state,
       r.result, r.error, r.created_by, COALESCE(u.name, u.user_name) AS created_by_name, r.created_at, r.deadline,
       r.sent_at, r.answered_at, r.ended_at,
       CASE WHEN r.answered_at IS NOT NULL AND r.sent_at IS NOT NULL
            THEN GREATEST(0, (extract(epoch FROM r.answered_at - r.sent_at) * 1000)::int) END AS latency_ms,
       CASE WHEN r.server_ip IS NOT NULL THEN r.server_ip || ':' || COALESCE(r.server_port::text, '') END
           AS server_address
FROM exchange_video_pull r
JOIN inferior_platform p ON p.id = r.inferior_platform_id
JOIN exchange_vehicle v ON v.id = r.vehicle_id
LEFT JOIN app_user u ON u.id = r.created_by;
