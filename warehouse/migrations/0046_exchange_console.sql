-- The data-exchange screens (platform-spec §2 "Data exchange": upstreamMessage, downstreamMessage, inspectMessage,
-- alarmMessage) read these views of migration 0045's tables, each row with the enterprise of its superior platform
-- (the tenant column) and the platform's name.
--
-- exchange_message_view: the JT/T 809 frame log (exchange_upstream_view / exchange_downstream_view: one direction). A 0x1001 login carries the password in clear: its decoded body
-- never shows a `password` key and its bytes are never shown (the link service already logs it without them;
-- the view holds the rule whatever a writer does).
-- exchange_alarm_view: alarms forwarded to a superior (0x1400 / 0x1402) and urgings it sent (0x9400 / 0x9401),
-- with the upper-platform alarm type (WARN_TYPE 1-13, platform-spec §9) and the plate, from either layout
-- (2011: plate in the family header; 2019: in the 0x1402 data).
-- exchange_inspection_view: 0x9301 inspections with the state the operator sees: `expired` when still open
-- after its deadline (it can no longer be answered, api/routes/exchange.py), and the answer's latency.
-- depends: 0045_exchange

CREATE VIEW exchange_message_view AS
SELECT m.id, m.platform_id, p.name AS platform_name, p.enterprise_id, m.time, m.direction, m.link, m.msg_id,
       m.data_type,
       CASE WHEN m.msg_id = 4097 THEN m.decoded - 'password' ELSE m.decoded END AS decoded,
       CASE WHEN m.msg_id = 4097 THEN '' ELSE m.raw_hex END AS raw_hex
FROM exchange_message m JOIN superior_platform p ON p.id = m.platform_id;
CREATE VIEW exchange_upstream_view AS SELECT * FROM exchange_message_view WHERE direction = 'up';
CREATE VIEW exchange_downstream_view AS SELECT * FROM exchange_message_view WHERE direction = 'down';

CREATE VIEW exchange_alarm_view AS
SELECT m.id, m.platform_id, p.name AS platform_name, p.enterprise_id, m.time, m.direction, m.msg_id, m.data_type,
       NULLIF(COALESCE(m.decoded->>'plate', m.decoded->'data'->>'plate'), '') AS plate_number,
       (m.decoded->'data'->>'warn_type')::integer AS warn_type,
       COALESCE(m.decoded->'data'->>'warn_time', m.decoded->'data'->>'start_time') AS warn_time_text,
       COALESCE(m.decoded->'data'->>'content', m.decoded->'data'->>'supervisor') AS info,
       m.decoded->'data'->>'supervision_id' AS supervision_id,
       m.decoded->'data'->>'end_time' AS urging_deadline_text
FROM exchange_message m JOIN superior_platform p ON p.id = m.platform_id
WHERE (m.msg_id = 5120 AND m.data_type = 5122) OR (m.msg_id = 37888 AND m.data_type = 37889);

CREATE VIEW exchange_inspection_view AS
SELECT i.id, i.platform_id, p.name AS platform_name, p.enterprise_id, i.received_at, i.object_type, i.object_id,
       i.info_id, i.question, i.deadline,
       CASE WHEN i.state = 'open' AND i.deadline IS NOT NULL AND i.deadline <= now() THEN 'expired'
            ELSE i.state END AS state,
       i.answer, i.answered_by, COALESCE(u.name, u.user_name) AS answered_by_name, i.answered_at, i.sent_at,
       CASE WHEN i.answered_at IS NOT NULL
            THEN round(extract(epoch FROM i.answered_at - i.received_at))::integer END AS answer_latency_s
FROM exchange_inspection i JOIN superior_platform p ON p.id = i.platform_id
LEFT JOIN app_user u ON u.id = i.answered_by;
CREATE INDEX exchange_inspection_received ON exchange_inspection (received_at);
