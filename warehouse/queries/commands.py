"""The API's SQL for commands to terminals (migration 0013): the target device, the command row, its
state, the terminal's parameters. Functions that take a ``Scope`` answer None for a record outside it,
exactly as for a missing one. The streams' command rows: ``insert_async`` / ``target_async`` (0x9208);
their state updates (replies, sent records, timeouts) are command_state.py.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from psycopg import AsyncConnection, Connection, sql
from psycopg.rows import dict_row, tuple_row
from psycopg.types.json import Jsonb

from warehouse.queries.scope import Scope

_DEVICE_COLUMNS = sql.SQL(
    """d.id AS "deviceId", d.car_id AS "carId", d.enterprise_id AS "enterpriseId", d.phone, d.state,
       d.protocol_version AS "protocolVersion", c.plate_number AS "plateNumber", d.protocol, c.vin """
)


def device_of_car(conn: Connection[Any], scope: Scope, car_id: int, device_id: int | None) -> dict[str, Any] | None:
    """The car's device ``device_id`` (None: its master device, else its first live device) when the car
    is in ``scope``; None otherwise (a device of another car is None too)."""
    where, params = scope.clause(sql.Identifier("c", "enterprise_id"))
    query = sql.SQL(
        """SELECT {cols} FROM car c JOIN device d ON d.car_id = c.id AND d.record_state = 1
           WHERE c.id = %s AND c.record_state = 1 AND {where} AND (%s::bigint IS NULL OR d.id = %s)
           ORDER BY (d.id = c.master_device_id) DESC NULLS LAST, d.id LIMIT 1"""
    ).format(cols=_DEVICE_COLUMNS, where=where)
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, [car_id, *params, device_id, device_id])
        return cur.fetchone()


def device(conn: Connection[Any], scope: Scope, device_id: int) -> dict[str, Any] | None:
    where, params = scope.clause(sql.Identifier("d", "enterprise_id"))
    query = sql.SQL(
        """SELECT {cols} FROM device d LEFT JOIN car c ON c.id = d.car_id
           WHERE d.id = %s AND d.record_state = 1 AND {where}"""
    ).format(cols=_DEVICE_COLUMNS, where=where)
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, [device_id, *params])
        return cur.fetchone()


def devices(conn: Connection[Any], scope: Scope, device_ids: list[int]) -> list[dict[str, Any]]:
    """The live devices of ``device_ids`` inside ``scope`` (others are simply absent)."""
    where, params = scope.clause(sql.Identifier("d", "enterprise_id"))
    query = sql.SQL(
        """SELECT {cols} FROM device d LEFT JOIN car c ON c.id = d.car_id
           WHERE d.id = ANY(%s) AND d.record_state = 1 AND {where}"""
    ).format(cols=_DEVICE_COLUMNS, where=where)
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, [device_ids, *params])
        return cur.fetchall()


_INSERT = """INSERT INTO command (enterprise_id, car_id, device_id, phone, msg_id, payload, body_hex,
                                created_by, created_by_name)
           VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
           RETURNING id, created_at AS "createdAt" """


def _insert_params(target: dict[str, Any], msg_id: int, payload: dict[str, Any], body_hex: str,
                   user_id: int | None, user_name: str | None) -> tuple[Any, ...]:
    return (target["enterpriseId"], target["carId"], target["deviceId"], target["phone"], msg_id, Jsonb(payload),
            body_hex, user_id, user_name)


def insert(conn: Connection[Any], target: dict[str, Any], *, msg_id: int, payload: dict[str, Any], body_hex: str,
           user_id: int | None, user_name: str | None) -> dict[str, Any]:
    """A new command in state ``created``: ``{id, createdAt}``."""
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(_INSERT, _insert_params(target, msg_id, payload, body_hex, user_id, user_name))
        row = cur.fetchone()
        assert row is not None
        return row


async def insert_async(conn: AsyncConnection[Any], target: dict[str, Any], *, msg_id: int, payload: dict[str, Any],
                       body_hex: str, user_id: int | None, user_name: str | None) -> dict[str, Any]:
    """``insert`` for the streams worker (platform commands such as 0x9208, streams/alarm_commands.py)."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(_INSERT, _insert_params(target, msg_id, payload, body_hex, user_id, user_name))
        row = await cur.fetchone()
        assert row is not None
        return row


# A platform service's command (the media server's 0x9102 / 0x9202 stop, created_by NULL): written only
# while the device is live and in ``online_state``, since nothing is sent to an offline terminal.
_INSERT_FOR_ONLINE_DEVICE = """INSERT INTO command (enterprise_id, car_id, device_id, phone, msg_id, payload, body_hex,
                                                  created_by, created_by_name)
                               SELECT d.enterprise_id, d.car_id, d.id, d.phone, %s, %s, %s, NULL, %s
                               FROM device d WHERE d.id = %s AND d.state = %s AND d.record_state = 1
                               RETURNING id, phone, created_at"""


async def insert_for_online_device_async(conn: AsyncConnection[Any], device_id: int, online_state: int, *,
                                         msg_id: int, payload: dict[str, Any], body_hex: str,
                                         created_by_name: str) -> tuple[int, str, datetime] | None:
    """A service's command in state ``created`` for a device whose state is ``online_state``:
    (id, phone, created_at), or None when the device is offline, deleted or unknown."""
    row = await (await conn.execute(_INSERT_FOR_ONLINE_DEVICE, (msg_id, Jsonb(payload), body_hex, created_by_name,
                                                                device_id, online_state))).fetchone()
    return None if row is None else (int(row[0]), str(row[1]), row[2])


_TARGET = """
SELECT d.id AS "deviceId", d.car_id AS "carId", d.enterprise_id AS "enterpriseId", d.phone, d.state,
       d.protocol_version AS "protocolVersion", d.offline_time AS "offlineTime"
FROM device d WHERE d.id = %s
"""


async def target_async(conn: AsyncConnection[Any], device_id: int) -> dict[str, Any] | None:
    """A device as the target of a service's command (the streams' 0x9208), with its state and
    ``offlineTime`` for the caller's reachability check; None for an unknown device. No scope: services only."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(_TARGET, (device_id,))
        return await cur.fetchone()


def payload_of(conn: Connection[Any], command_id: int) -> dict[str, Any] | None:
    """The payload a command was created with (None for an unknown id). The caller checks the scope."""
    with conn.cursor(row_factory=tuple_row) as cur:
        row = cur.execute("SELECT payload FROM command WHERE id = %s", (command_id,)).fetchone()
    return None if row is None else row[0]


def mark_failed(conn: Connection[Any], command_id: int, reason: str) -> None:
    """A command whose downlink never left the API (Kafka down); terminal states are kept."""
    conn.execute(
        """UPDATE command SET state = 'failed', reason = %s, updated_at = now()
           WHERE id = %s AND state IN ('created', 'sent')""",
        (reason, command_id),
    )


def state(conn: Connection[Any], scope: Scope, command_id: int) -> dict[str, Any] | None:
    where, params = scope.clause(sql.Identifier("m", "enterprise_id"))
    query = sql.SQL(
        """SELECT m.id, m.car_id AS "carId", m.device_id AS "deviceId", c.plate_number AS "plateNumber",
                  m.msg_id AS "msgId", m.state, m.result, m.reason, m.reply_msg_id AS "replyMsgId", m.reply,
                  m.created_at AS "createdAt", m.sent_at AS "sentAt", m.answered_at AS "answeredAt",
                  m.created_by_name AS "createdByName"
           FROM command m LEFT JOIN car c ON c.id = m.car_id
           WHERE m.id = %s AND {where}"""
    ).format(where=where)
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(query, [command_id, *params])
        return cur.fetchone()


def device_params(conn: Connection[Any], device_id: int) -> dict[str, str]:
    """``{"0055": "0000003C", ...}`` from the terminal's last 0x0104 replies (ids as 4+ hex digits)."""
    rows = conn.execute(
        "SELECT param_id, value_hex FROM device_param WHERE device_id = %s ORDER BY param_id", (device_id,)
    ).fetchall()
    return {f"{param_id:04X}": value_hex for param_id, value_hex in rows}
