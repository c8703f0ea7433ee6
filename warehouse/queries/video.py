"""The API's SQL for live video: a device with its video fields, by car, id or serial.
Functions that take a ``Scope`` answer None for a record outside it, exactly as for a missing one."""

from __future__ import annotations

from typing import Any

from psycopg import Connection, sql
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
