"""Vehicles, devices, their states, last positions and the enterprise tree, scoped to a tenant.

Every function takes a ``Scope`` and answers None for a record outside it, exactly as for a
record that does not exist, so callers cannot tell the two apart.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection, Connection, sql
from psycopg.rows import dict_row

from warehouse.queries.scope import Scope, like_prefix


def _one(conn: Connection[Any], query: sql.Composed, params: list[Any]) -> dict[str, Any] | None:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, params)
        return cur.fetchone()


def device_state(conn: Connection[Any], scope: Scope, device_id: int) -> dict[str, Any] | None:
    """{id, state, bizState} of a device (DeviceState and BizState values)."""
    where, params = scope.clause(sql.Identifier("enterprise_id"))
    query = sql.SQL('SELECT id, state, biz_state AS "bizState" FROM device WHERE id = %s AND record_state = 1 AND ') + where
    return _one(conn, query, [device_id, *params])


def car_master_state(conn: Connection[Any], scope: Scope, car_id: int) -> dict[str, Any] | None:
    """{carId, masterDeviceId, state, bizState} of a car in scope; the device fields are None when
    it has no master device. The car's enterprise decides visibility, not the device's."""
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    query = (
        sql.SQL(
            """SELECT c.id AS "carId", c.master_device_id AS "masterDeviceId", d.state, d.biz_state AS "bizState"
               FROM car c LEFT JOIN device d ON d.id = c.master_device_id
               WHERE c.id = %s AND c.record_state = 1 AND """
        )
        + where
    )
    return _one(conn, query, [car_id, *params])


def device_car(conn: Connection[Any], scope: Scope, device_id: int) -> dict[str, Any] | None:
    """The link between a device and its car (car fields None when the device has no car)."""
    where, params = scope.clause(sql.Identifier("d", "enterprise_id"))
    query = (
        sql.SQL(
            """SELECT d.id AS "deviceId", d.device_sn AS "deviceSn", d.phone, d.enterprise_id AS "enterpriseId",
                      d.protocol, d.protocol_version AS "protocolVersion",
                      c.id AS "carId", c.plate_number AS "plateNumber", c.plate_color AS "plateColor",
                      c.vin, (c.master_device_id = d.id) AS "master"
               FROM device d LEFT JOIN car c ON c.id = d.car_id AND c.record_state = 1
               WHERE d.id = %s AND d.record_state = 1 AND """
        )
        + where
    )
    return _one(conn, query, [device_id, *params])


_LAST_COLUMNS = sql.SQL(
    """l.device_id, l.car_id, l.enterprise_id, l.fix_at, l.lng, l.lat, l.altitude_m, l.speed_kmh,
       l.direction_deg, l.mileage_km, l.fuel_l, l.alarm_flags, l.status_flags"""
)
_LAST_OF_DEVICE = sql.SQL(
    "SELECT d.id AS found, {} FROM device d LEFT JOIN device_last l ON l.device_id = d.id WHERE d.id = %s AND d.record_state = 1 AND "
).format(_LAST_COLUMNS)
_LAST_OF_CAR = sql.SQL(
    "SELECT c.id AS found, {} FROM car c LEFT JOIN device_last l ON l.device_id = c.master_device_id WHERE c.record_state = 1 AND "
).format(_LAST_COLUMNS)


def last_position(
    conn: Connection[Any],
    scope: Scope,
    *,
    device_id: int | None = None,
    car_id: int | None = None,
    vin: str | None = None,
) -> dict[str, Any] | None:
    """The ``device_last`` row (snake_case) of a device, or of a car's master device (by id or VIN).

    None when the device or car is absent or out of scope; a row with ``fix_at`` None when it
    exists but has no position yet.
    """
    if device_id is not None:
        where, params = scope.clause(sql.Identifier("d", "enterprise_id"))
        return _one(conn, _LAST_OF_DEVICE + where, [device_id, *params])
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    if car_id is not None:
        return _one(conn, _LAST_OF_CAR + sql.SQL("c.id = %s AND ") + where, [car_id, *params])
    return _one(conn, _LAST_OF_CAR + sql.SQL("c.vin = %s AND ") + where, [vin, *params])


def enterprise_subtree(conn: Connection[Any], root_path: str) -> list[dict[str, Any]]:
    """Enterprises whose path starts with ``root_path``, parents before children."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT id, parent_id AS "parentId", path, name, short_name AS "shortName", type, state
               FROM enterprise WHERE path LIKE %s AND record_state = 1 ORDER BY length(path), id""",
            (like_prefix(root_path),),
        )
        return cur.fetchall()


def enterprise_path(conn: Connection[Any], enterprise_id: int) -> str | None:
    with conn.cursor() as cur:
        cur.execute("SELECT path FROM enterprise WHERE id = %s AND record_state = 1", (enterprise_id,))
        row = cur.fetchone()
        return None if row is None else str(row[0])


async def plate_number_async(conn: AsyncConnection[Any], car_id: int) -> str | None:
    """A car's plate number (deleted cars too: a push names the vehicle it is about); None for an unknown car."""
    row = await (await conn.execute("SELECT plate_number FROM car WHERE id = %s", (car_id,))).fetchone()
    return None if row is None else row[0]
