"""Live video: the API's reads of a device with its video fields, by car, id or serial (functions that
take a ``Scope`` answer None for a record outside it, exactly as for a missing one), and the media
server's ``video_log`` rows (migration 0025: who watched which stream, from when to when, how many bytes;
their only writer; each names its ``live_session``, migration 0056)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg import AsyncConnection, Connection, sql
from psycopg.rows import dict_row

from warehouse.queries.scope import Scope

_COLUMNS = sql.SQL(
    """d.id AS "deviceId", d.car_id AS "carId", d.enterprise_id AS "enterpriseId", d.phone, d.state,
       d.protocol_version AS "protocolVersion", c.plate_number AS "plateNumber", d.device_sn AS "deviceSn",
       d.video_channel AS "videoChannel", d.talk_channel AS "talkChannel", d.has_video AS "hasVideo",
       d.has_microphone AS "hasMicrophone", d.video_protocol_version AS "videoProtocolVersion" """
)


def _one(conn: Connection[Any], where: sql.Composable, params: list[Any]) -> dict[str, Any] | None:
    query = sql.SQL("SELECT {cols} FROM device d LEFT JOIN car c ON c.id = d.car_id WHERE d.record_state = 1 AND {where}"
                    " ORDER BY (d.id = c.master_device_id) DESC NULLS LAST, d.id LIMIT 1").format(cols=_COLUMNS,
                                                                                                 where=where)
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, params)
        return cur.fetchone()


def device_of_car(conn: Connection[Any], scope: Scope, car_id: int, device_id: int | None) -> dict[str, Any] | None:
    """The car's device ``device_id`` (None: its master device, else its first live device)."""
    tenant, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    where = sql.SQL("c.id = %s AND c.record_state = 1 AND {} AND (%s::bigint IS NULL OR d.id = %s)").format(tenant)
    return _one(conn, where, [car_id, *params, device_id, device_id])


def device(conn: Connection[Any], scope: Scope, device_id: int) -> dict[str, Any] | None:
    tenant, params = scope.clause(sql.Identifier("d", "enterprise_id"))
    return _one(conn, sql.SQL("d.id = %s AND {}").format(tenant), [device_id, *params])


def device_by_sn(conn: Connection[Any], scope: Scope, device_sn: str) -> dict[str, Any] | None:
    tenant, params = scope.clause(sql.Identifier("d", "enterprise_id"))
    return _one(conn, sql.SQL("d.device_sn = %s AND {}").format(tenant), [device_sn, *params])


def devices_in_scope(conn: Connection[Any], scope: Scope, device_ids: list[int]) -> set[int]:
    tenant, params = scope.clause(sql.Identifier("d", "enterprise_id"))
    query = sql.SQL("SELECT d.id FROM device d WHERE d.id = ANY(%s) AND d.record_state = 1 AND {}").format(tenant)
    return {row[0] for row in conn.execute(query, [device_ids, *params]).fetchall()}


_START_LOG = """INSERT INTO video_log (enterprise_id, device_id, car_id, user_id, user_name, stream_id, kind,
                                     channel, data_type, stream_type, transport, client, start_time, session_key)
               SELECT %s, %s, %s, %s, (SELECT COALESCE(name, user_name) FROM app_user WHERE id = %s), %s, %s,
                      %s, %s, %s, %s, %s, %s, %s
               RETURNING id"""
_END_LOG = """UPDATE video_log SET end_time = %s, bytes_sent = %s, end_reason = %s,
                     duration_s = GREATEST(0, EXTRACT(EPOCH FROM (%s - start_time)))::integer
              WHERE id = %s"""


async def start_log_async(conn: AsyncConnection[Any], *, enterprise_id: int, device_id: int, car_id: int | None,
                          user_id: int | None, stream_id: str, kind: str, channel: int, data_type: int,
                          stream_type: int, transport: str, client: str | None, start_time: datetime,
                          session_key: str | None = None) -> int | None:
    """A viewer's ``video_log`` row (the user's display name looked up), with the live session it watched
    (``live_session.session_key``, migration 0056); its id."""
    cur = await conn.execute(_START_LOG, (enterprise_id, device_id, car_id, user_id, user_id, stream_id, kind,
                                          channel, data_type, stream_type, transport, client, start_time,
                                          session_key))
    row = await cur.fetchone()
    return None if row is None else int(row[0])


async def end_log_async(conn: AsyncConnection[Any], log_id: int, *, end_time: datetime, bytes_sent: int,
                        reason: str) -> None:
    """Close a viewer's row: end time, bytes sent, why (at most 64 characters), whole seconds watched."""
    await conn.execute(_END_LOG, (end_time, bytes_sent, reason[:64], end_time, log_id))
