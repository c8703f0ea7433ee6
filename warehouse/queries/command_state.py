"""The stream processors' SQL for command state (streams/commands.py; migration 0013).

Every update is conditional on the row's state, so a replayed or late record never moves a command
back from answered, timed_out or failed. Named parameters; no identifiers are built from input.
"""

ANSWER = """
UPDATE command SET state = 'answered', result = %(result)s, reply_msg_id = %(msg_id)s, reply = %(reply)s,
       answered_at = %(at)s, updated_at = now()
WHERE id = (SELECT id FROM command
            WHERE device_id = %(device_id)s AND seq = %(seq)s AND state = 'sent'
              AND (%(answers)s::int[] IS NULL OR msg_id = ANY(%(answers)s::int[]))
              AND (%(reply_msg_id)s::int IS NULL OR msg_id = %(reply_msg_id)s::int)
            ORDER BY id DESC LIMIT 1 FOR UPDATE)
  AND state = 'sent'
RETURNING id, enterprise_id, car_id, device_id, msg_id, state, result, reply_msg_id, created_by"""

# A GB/T 32960 terminal's answer names its command (0x80 / 0x81 / 0x82) but no serial; its data unit starts with
# the time of the command it answers (GB/T 32960.3-2016 §6.3.2; every command the API writes starts with its own
# time). The answered command is the device's command of that id whose time the answer echoes, when one was
# created within ECHO_WINDOW_S of that time: answered if still open, and a late answer to one that timed out
# answers nothing else. A terminal that answers with another time answers the oldest open command of that id
# created before the answer arrived (the GB gateway writes one command per vehicle at a time). 'created' too,
# since the answer and the gateway's sent record travel on two topics and the answer may be processed first.
ANSWER_UNSEQUENCED = """
WITH echoed AS (
    SELECT id FROM command
    WHERE %(time_hex)s::text IS NOT NULL AND car_id = %(car_id)s AND device_id = %(device_id)s
      AND msg_id = %(msg_id)s
      AND created_at BETWEEN %(time)s::timestamptz - make_interval(secs => %(echo_window_s)s)
                         AND %(time)s::timestamptz + make_interval(secs => %(echo_window_s)s)
      AND lower(left(body_hex, 12)) = %(time_hex)s
    ORDER BY id LIMIT 1)
UPDATE command SET state = 'answered', result = %(result)s, reply_msg_id = %(msg_id)s, reply = %(reply)s,
       answered_at = %(at)s, sent_at = COALESCE(sent_at, %(at)s), updated_at = now()
WHERE id = (SELECT id FROM command
            WHERE device_id = %(device_id)s AND msg_id = %(msg_id)s AND state IN ('created', 'sent')
              AND created_at <= %(at)s::timestamptz + make_interval(secs => %(slack_s)s)
              AND (NOT EXISTS (SELECT 1 FROM echoed) OR id = (SELECT id FROM echoed))
            ORDER BY id LIMIT 1 FOR UPDATE)
  AND state IN ('created', 'sent')
RETURNING id, enterprise_id, car_id, device_id, msg_id, state, result, reply_msg_id, created_by"""

KEEP_EARLY = """
INSERT INTO command_reply_early (device_id, reply_seq, msg_id, reply_msg_id, result, reply, received_at)
SELECT %(device_id)s, %(seq)s, %(msg_id)s, %(reply_msg_id)s, %(result)s, %(reply)s, %(at)s
WHERE EXISTS (SELECT 1 FROM command WHERE device_id = %(device_id)s AND state = 'created'
                AND (%(answers)s::int[] IS NULL OR msg_id = ANY(%(answers)s::int[]))
                AND (%(reply_msg_id)s::int IS NULL OR msg_id = %(reply_msg_id)s::int))
ON CONFLICT (device_id, reply_seq, msg_id) DO UPDATE
   SET reply_msg_id = EXCLUDED.reply_msg_id, result = EXCLUDED.result, reply = EXCLUDED.reply,
       received_at = EXCLUDED.received_at"""

UPSERT_PARAMS = """
INSERT INTO device_param (device_id, param_id, value_hex, updated_at)
SELECT %(device_id)s, t.param_id, t.value_hex, %(at)s FROM unnest(%(ids)s::int[], %(values)s::text[]) AS t(param_id, value_hex)
ON CONFLICT (device_id, param_id) DO UPDATE SET value_hex = EXCLUDED.value_hex, updated_at = EXCLUDED.updated_at
WHERE device_param.updated_at <= EXCLUDED.updated_at"""

MARK_SENT = """
UPDATE command SET state = 'sent', seq = %(seq)s, sent_at = %(at)s, updated_at = now()
WHERE id = %(id)s AND state = 'created'
RETURNING id, enterprise_id, car_id, device_id, msg_id, state, result, reply_msg_id, seq, created_at, created_by"""

TAKE_EARLY = """
DELETE FROM command_reply_early
WHERE device_id = %(device_id)s AND reply_seq = %(seq)s AND received_at >= %(since)s
  AND ((msg_id = 1 AND reply_msg_id = %(cmd_msg_id)s) OR msg_id = ANY(%(own_for)s::int[]))
RETURNING msg_id, reply_msg_id, result, reply, received_at"""

FAIL = """
UPDATE command SET state = %(state)s, reason = %(reason)s, updated_at = now()
WHERE id = %(id)s AND state IN ('created', 'sent')
RETURNING id, enterprise_id, car_id, device_id, msg_id, state, result, reply_msg_id, created_by"""

TIME_OUT = """
UPDATE command SET state = 'timed_out', reason = 'reply_timeout', updated_at = now()
WHERE id IN (SELECT id FROM command
             WHERE state IN ('created', 'sent') AND created_at < now() - make_interval(secs => %(timeout)s)
               AND COALESCE(sent_at, created_at) < now() - make_interval(secs => %(timeout)s)
             ORDER BY created_at LIMIT 1000 FOR UPDATE SKIP LOCKED)
  AND state IN ('created', 'sent')
RETURNING id, enterprise_id, car_id, device_id, msg_id, state, result, reply_msg_id, created_by"""

DROP_STALE_EARLY = "DELETE FROM command_reply_early WHERE received_at < now() - make_interval(secs => %s)"
