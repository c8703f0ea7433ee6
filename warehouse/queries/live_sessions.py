"""The live log (migration 0056): one ``live_session`` row per life of a media-server stream, written by the
media server (gateway/video/platform.py, its only writer) and read by the API's live log detail
(api/routes/live_log.py).

Writes are one idempotent upsert (``record_async``): the start, the first frame and the end each send the whole
row as the media server knows it then, in any order, any number of times; a later write never blanks a time an
earlier one set nor lowers a counter. Reads that take a ``Scope`` answer None for a session outside it, exactly
as for a missing one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection, Connection, sql
from psycopg.rows import dict_row

from warehouse.queries.scope import Scope

END_REASONS = ("user", "idle", "terminal_left", "never_connected", "replaced", "server_stopping")

_UPSERT = """
INSERT INTO live_session AS s (session_key, enterprise_id, device_id, car_id, user_id, user_name, stream_id, kind,
                               channel, data_type, stream_type, request_time, first_frame_time, end_time, duration_s,
                               bytes_in, frames, heartbeats, last_heartbeat_time, peak_viewers, end_reason)
SELECT %(session_key)s, %(enterprise_id)s, %(device_id)s, %(car_id)s, %(user_id)s,
       (SELECT COALESCE(name, user_name) FROM app_user WHERE id = %(user_id)s), %(stream_id)s, %(kind)s, %(channel)s,
       %(data_type)s, %(stream_type)s, %(request_time)s, %(first_frame_time)s, %(end_time)s, %(duration_s)s,
       %(bytes_in)s, %(frames)s, %(heartbeats)s, %(last_heartbeat_time)s, %(peak_viewers)s, %(end_reason)s
ON CONFLICT (session_key) DO UPDATE SET
    first_frame_time = COALESCE(s.first_frame_time, EXCLUDED.first_frame_time),
    end_time = COALESCE(s.end_time, EXCLUDED.end_time),
    duration_s = COALESCE(s.duration_s, EXCLUDED.duration_s),
    bytes_in = GREATEST(s.bytes_in, EXCLUDED.bytes_in),
    frames = GREATEST(s.frames, EXCLUDED.frames),
    heartbeats = GREATEST(s.heartbeats, EXCLUDED.heartbeats),
    last_heartbeat_time = GREATEST(s.last_heartbeat_time, EXCLUDED.last_heartbeat_time),
    peak_viewers = GREATEST(s.peak_viewers, EXCLUDED.peak_viewers),
    end_reason = COALESCE(s.end_reason, EXCLUDED.end_reason),
    updated_at = now()
"""

RECORD_KEYS = ("session_key", "enterprise_id", "device_id", "car_id", "user_id", "stream_id", "kind", "channel",
               "data_type", "stream_type", "request_time", "first_frame_time", "end_time", "duration_s", "bytes_in",
               "frames", "heartbeats", "last_heartbeat_time", "peak_viewers", "end_reason")


async def record_async(conn: AsyncConnection[Any], row: dict[str, Any]) -> None:
    """Upsert a session as known now (``row`` has every ``RECORD_KEYS`` key). Raises KeyError for a missing
    key and the database's errors (an unknown end reason: CheckViolation)."""
    await conn.execute(_UPSERT, {key: row[key] for key in RECORD_KEYS})


def record(conn: Connection[Any], row: dict[str, Any]) -> None:
    """``record_async`` for synchronous callers (the demo seed)."""
    conn.execute(_UPSERT, {key: row[key] for key in RECORD_KEYS})


_SESSION = sql.SQL(
    """SELECT id, session_key::text AS "sessionKey", enterprise_id AS "enterpriseId", device_id AS "deviceId",
              car_id AS "carId", plate_number AS "plateNumber", device_sn AS "deviceSn", user_id AS "userId",
              user_name AS "userName", stream_id AS "streamId", kind, channel, data_type AS "dataType",
              stream_type AS "streamType", request_time AS "requestTime", first_frame_time AS "firstFrameTime",
              end_time AS "endTime", duration_s AS "durationS", bytes_in AS "bytesIn", frames, heartbeats,
              last_heartbeat_time AS "lastHeartbeatTime", peak_viewers AS "peakViewers", end_reason AS "endReason",
              viewers, bytes_sent AS "bytesSent"
       FROM live_session_view WHERE id = %s AND {}""")


def session(conn: Connection[Any], scope: Scope, session_id: int) -> dict[str, Any] | None:
    tenant, params = scope.clause(sql.Identifier("enterprise_id"))
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(_SESSION.format(tenant), [session_id, *params])
        return cur.fetchone()


# A session's commands: the 0x9101 the API sent for its stream and the 0x9102 that closed it (the API's for a
# user's stop, the media server's for an idle stream), matched by the stream id every such command row carries
# in its payload, between the request (less a second: clocks of two processes) and a minute after the end.
_COMMANDS = """
SELECT id, msg_id AS "msgId", state, result, reason, created_by_name AS "createdByName", created_at AS "createdAt",
       sent_at AS "sentAt", answered_at AS "answeredAt", (payload->>'command')::int AS "command"
FROM command
WHERE device_id = %s AND msg_id IN (37121, 37122) /* 0x9101, 0x9102 */ AND payload->>'streamId' = %s
  AND created_at >= %s - interval '1 second' AND created_at <= COALESCE(%s, now()) + interval '1 minute'
ORDER BY created_at, id
LIMIT 100"""


def session_commands(conn: Connection[Any], device_id: int, stream_id: str, since: datetime,
                     until: datetime | None) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(_COMMANDS, (device_id, stream_id, since, until))
        return cur.fetchall()


_VIEWERS = """
SELECT id, user_id AS "userId", user_name AS "userName", transport, client, start_time AS "startTime",
       end_time AS "endTime", duration_s AS "durationS", bytes_sent AS "bytesSent", end_reason AS "endReason"
FROM video_log WHERE session_key = %s ORDER BY start_time, id LIMIT 200"""


def session_viewers(conn: Connection[Any], session_key: str | UUID) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(_VIEWERS, (str(session_key),))
        return cur.fetchall()
