"""SQL of the terminal fence sync (migrations 0040, 0043; streams/fence_sync.py): what fence + fence_binding
want on each terminal, what fence_sync holds, the rows to send, and the state a command's answer gives.
Named parameters; no identifiers are built from input.
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection, sql

from warehouse.queries.scope import Scope

# One reconciler at a time across streams workers (a transaction-scoped advisory lock; key: "fencesyn").
LOCK = "SELECT pg_try_advisory_xact_lock(7366291082374238574)"

# The candidates of ``streams.fence_sync.plan`` (which decides): desired rows with no row in step (none, a
# delete, an older version) and set rows no longer desired. In a fleet in sync both are empty: PostgreSQL
# joins the bindings and the worker receives nothing (the diff of every row in Python took 57 ms of worker
# CPU per tick for 10,000 bindings).
CANDIDATES = """
WITH desired AS (  -- every terminal fence (business type 2) on the live master device (else every live
                  -- device) of each bound live car
    SELECT f.id AS fence_id, d.id AS device_id, d.enterprise_id, f.updated_at AS version, f.shape
    FROM fence f
    JOIN fence_binding b ON b.fence_id = f.id
    JOIN car c ON c.id = b.car_id AND c.record_state = 1
    JOIN device d ON d.car_id = c.id AND d.record_state = 1
                 AND (c.master_device_id IS NULL OR d.id = c.master_device_id)
    WHERE f.business_type = 2)
SELECT 'desired' AS side, d.fence_id, d.device_id, d.enterprise_id, d.version, d.shape,
       NULL::text AS wanted, NULL::text AS state
FROM desired d LEFT JOIN fence_sync fs ON fs.fence_id = d.fence_id AND fs.device_id = d.device_id
WHERE fs.fence_id IS NULL OR fs.wanted = 'delete' OR fs.version < d.version
UNION ALL
SELECT 'held', fs.fence_id, fs.device_id, fs.enterprise_id, fs.version, fs.shape, fs.wanted, fs.state
FROM fence_sync fs
WHERE fs.wanted = 'set'
  AND NOT EXISTS (SELECT 1 FROM desired d WHERE d.fence_id = fs.fence_id AND d.device_id = fs.device_id)"""

# A change of the plan: the row goes back to pending with what is wanted now (set: the fence's version;
# delete: the held version). ``shape`` stays the shape last sent (what the terminal may hold, so a fence
# whose shape changed has its old area deleted before the new one is set); a new row takes the fence's.
UPSERT_PENDING = """
INSERT INTO fence_sync (fence_id, device_id, enterprise_id, wanted, state, version, shape)
VALUES (%(fence_id)s, %(device_id)s, %(enterprise_id)s, %(wanted)s, 'pending', %(version)s, %(shape)s)
ON CONFLICT (fence_id, device_id) DO UPDATE
   SET enterprise_id = EXCLUDED.enterprise_id, wanted = EXCLUDED.wanted, state = 'pending',
       version = EXCLUDED.version, shape = COALESCE(fence_sync.shape, EXCLUDED.shape), command_id = NULL,
       result = NULL, error = NULL, updated_at = now()"""

# The carrying command ended: 0x0001 result 0 -> acknowledged; result 1-3 -> failed with it; no answer
# (timed out) or not delivered (offline, closed, queue_full, ...) -> failed with the reason as error.
FOLLOW_COMMANDS = """
UPDATE fence_sync fs
   SET state = CASE WHEN c.state = 'answered' AND c.result = 0 THEN 'acknowledged' ELSE 'failed' END,
       result = CASE WHEN c.state = 'answered' THEN c.result END,
       error = CASE WHEN c.state = 'answered' THEN NULL
                    WHEN c.state = 'timed_out' THEN 'timeout'
                    ELSE COALESCE(c.reason, 'failed') END,
       updated_at = now()
FROM command c
WHERE c.id = fs.command_id AND fs.state = 'sent' AND c.state IN ('answered', 'timed_out', 'failed')"""

# A delete the terminal acknowledged: nothing is left to track.
DROP_DELETED = "DELETE FROM fence_sync WHERE wanted = 'delete' AND state = 'acknowledged'"

# To send now, on a terminal that is online: pending rows, and rows that failed without a terminal
# result (timeout, offline, ...) once the terminal authenticated again after the failure (a fence refused as
# not sendable has no command and waits for an edit).
TO_SEND = """
SELECT fs.fence_id, fs.device_id, fs.wanted, fs.version, fs.shape,
       d.car_id AS "carId", d.enterprise_id AS "enterpriseId", d.id AS "deviceId", d.phone, d.state,
       d.protocol_version AS "protocolVersion"
FROM fence_sync fs JOIN device d ON d.id = fs.device_id AND d.record_state = 1
WHERE d.state = %(online)s
  AND (fs.state = 'pending'
       OR (fs.state = 'failed' AND fs.result IS NULL AND fs.command_id IS NOT NULL
           AND d.online_time > fs.updated_at))
ORDER BY fs.updated_at LIMIT %(limit)s
FOR UPDATE OF fs SKIP LOCKED"""

FENCE = """
SELECT id, name, shape, geometry, attributes, start_time, end_time, speed_limit, overspeed_duration,
       night_speed_limit, updated_at
FROM fence WHERE id = %(fence_id)s"""

MARK_SENT = """
UPDATE fence_sync SET state = 'sent', command_id = %(command_id)s, result = NULL, error = NULL,
       shape = COALESCE(%(shape)s, shape), updated_at = now()
WHERE fence_id = %(fence_id)s AND device_id = %(device_id)s"""

MARK_REFUSED = """
UPDATE fence_sync SET state = 'failed', command_id = NULL, result = NULL, error = %(error)s, updated_at = now()
WHERE fence_id = %(fence_id)s AND device_id = %(device_id)s"""

def resend(conn: Connection[Any], scope: Scope, fence_id: int, device_ids: list[int] | None) -> list[int] | None:
    """The console's resend: the fence's failed rows in ``scope`` (only ``device_ids`` when given) go back to
    pending, so the reconciler sends them on its next tick once their terminal is online. Returns their device
    ids, or None when the fence has no row in ``scope`` (a row of another enterprise is like a missing one)."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    with conn.cursor() as cur:
        cur.execute(sql.SQL("SELECT 1 FROM fence_sync WHERE fence_id = %s AND {where} LIMIT 1").format(where=where),
                    [fence_id, *params])
        if cur.fetchone() is None:
            return None
        cur.execute(sql.SQL(
            """UPDATE fence_sync SET state = 'pending', command_id = NULL, result = NULL, error = NULL,
                      updated_at = now()
               WHERE fence_id = %s AND state = 'failed' AND (%s::bigint[] IS NULL OR device_id = ANY(%s::bigint[]))
                 AND {where}
               RETURNING device_id""").format(where=where), [fence_id, device_ids, device_ids, *params])
        return sorted(int(row[0]) for row in cur.fetchall())
