-- JT/T 809, fleetwatch as the superior platform (platform-spec §2 inferiorPlatform, upstreamMessage,
-- downstreamMessage; exchange/superior).
--
-- inferior_request.deadline: when an operator's request stops waiting. An inspection's answer time (its
-- answer_minutes, sent in the 2019 0x9301) counts from sending; until it is sent, from its creation, so a
-- request to a platform that never connects expires instead of staying queued for ever. A message (0x9302) has
-- no answer time in the standard: the API gives it the default inspection time for its 0x1302 acknowledgement.
-- The superior service moves a queued or sent request past its deadline to `expired` (not sent any more, a
-- later answer matches nothing); the view shows `expired` at once, before the service's next poll.
-- exchange_message_view: the frame logs (upstream / downstream) hold the frames of both kinds of platform:
-- `platform_kind` superior (a superior_platform's links, fleetwatch the inferior) or inferior (an
-- inferior_platform's links, fleetwatch the superior), the platform's name and enterprise from either table.
-- `platform_id` keeps naming the superior platform; `inferior_platform_id` names the inferior one.
-- depends: 0049_gb32960_state

ALTER TABLE inferior_request ADD COLUMN deadline timestamptz;
UPDATE inferior_request SET deadline = COALESCE(sent_at, created_at) + make_interval(mins => answer_minutes)
WHERE answer_minutes IS NOT NULL;
ALTER TABLE inferior_request DROP CONSTRAINT inferior_request_state_check;
ALTER TABLE inferior_request ADD CONSTRAINT inferior_request_state_check
    CHECK (state IN ('queued', 'sent', 'answered', 'failed', 'expired'));

CREATE OR REPLACE VIEW inferior_request_view AS
SELECT r.id, r.inferior_platform_id, p.name AS platform_name, r.enterprise_id, r.kind, r.object_type, r.object_id,
       r.content, r.answer_minutes, r.created_by, r.created_at,
       CASE WHEN r.state IN ('queued', 'sent') AND r.deadline <= now() THEN 'expired' ELSE r.state END AS state,
       r.link, r.sent_at, r.answer, r.responder, r.answered_at, r.latency_ms, r.deadline
FROM inferior_request r JOIN inferior_platform p ON p.id = r.inferior_platform_id;

CREATE OR REPLACE VIEW exchange_message_view AS
SELECT m.id, m.platform_id, COALESCE(p.name, i.name) AS platform_name,
       COALESCE(p.enterprise_id, i.enterprise_id) AS enterprise_id, m.time, m.direction, m.link, m.msg_id,
       m.data_type,
       CASE WHEN m.msg_id = 4097 THEN m.decoded - 'password' ELSE m.decoded END AS decoded,
       CASE WHEN m.msg_id = 4097 THEN '' ELSE m.raw_hex END AS raw_hex,
       m.platform_kind, m.inferior_platform_id
FROM exchange_message m
LEFT JOIN superior_platform p ON p.id = m.platform_id
LEFT JOIN inferior_platform i ON i.id = m.inferior_platform_id;
CREATE OR REPLACE VIEW exchange_upstream_view AS SELECT * FROM exchange_message_view WHERE direction = 'up';
CREATE OR REPLACE VIEW exchange_downstream_view AS SELECT * FROM exchange_message_view WHERE direction = 'down';
