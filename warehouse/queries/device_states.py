"""Device state transitions (migrations 0001, 0011): the ACC, business-state and online logs
(``acc_state_log``, ``biz_state_log``, ``device_online_log``) and the device's current ``acc``,
``biz_state``, ``state``, ``online_time`` / ``offline_time`` and ``session_address``. The one writer is
the streams' states step (streams/states.py decides the transitions; this module stores them).

Every log insert is ON CONFLICT DO NOTHING on the log's primary key, so a replay after a crash, which
re-derives the same transitions at the same times, logs nothing twice. A disabled device (state 5, set by
the API's disable, warehouse/queries/fleet.py) keeps its state through online / offline changes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

from fleet.enums import DeviceState

_SEED = """
SELECT d.state, d.car_id, d.enterprise_id,
  (SELECT a.state FROM acc_state_log a WHERE a.device_id = d.id AND a.create_time < %(t)s
    ORDER BY a.create_time DESC LIMIT 1),
  (SELECT b.state FROM biz_state_log b WHERE b.device_id = d.id AND b.create_time < %(t)s
    ORDER BY b.create_time DESC LIMIT 1),
  (SELECT o.connection_id FROM device_online_log o WHERE o.device_id = d.id AND o.state = 1
    ORDER BY o.at DESC LIMIT 1),
  l.status_flags, l.speed_kmh, l.lng, l.lat
FROM device d LEFT JOIN device_last l ON l.device_id = d.id
WHERE d.id = %(id)s
"""


async def seed_row_async(conn: psycopg.AsyncConnection[Any], device_id: int, as_of: datetime) -> tuple[Any, ...] | None:
    """What a device's state starts from "as of" ``as_of``: (device state, car_id, enterprise_id, the last ACC
    and business state logged before ``as_of``, the connection id of its last online row, device_last's
    status_flags, speed_kmh, lng, lat); None for an unknown device."""
    cur = await conn.execute(_SEED, {"id": device_id, "t": as_of})
    return await cur.fetchone()


async def log_acc_async(conn: psycopg.AsyncConnection[Any], device_id: int, at: datetime, acc_on: bool,
                        car_id: int | None, enterprise_id: int, lng: float | None, lat: float | None) -> None:
    """An ACC change: its log row and the device's ``acc``."""
    await conn.execute(
        "INSERT INTO acc_state_log (device_id, create_time, state, car_id, enterprise_id, lng, lat)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
        (device_id, at, int(acc_on), car_id, enterprise_id, lng, lat))
    await conn.execute("UPDATE device SET acc = %s WHERE id = %s", (int(acc_on), device_id))


async def log_biz_async(conn: psycopg.AsyncConnection[Any], device_id: int, at: datetime, biz_state: int,
                        car_id: int | None, enterprise_id: int) -> None:
    """A business-state change (driving / parked ...): its log row and the device's ``biz_state``."""
    await conn.execute(
        "INSERT INTO biz_state_log (device_id, create_time, state, car_id, enterprise_id)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
        (device_id, at, int(biz_state), car_id, enterprise_id))
    await conn.execute("UPDATE device SET biz_state = %s WHERE id = %s", (int(biz_state), device_id))


async def log_online_async(conn: psycopg.AsyncConnection[Any], device_id: int, at: datetime, online: bool,
                           enterprise_id: int, reason: str, gateway_id: str, connection_id: str, *,
                           applies: bool, session_address: str | None) -> None:
    """An online / offline change: its log row, and when it ``applies`` (the current session's), the
    device's state and time. The session address is the current authenticated session's only: kept while it
    is online, cleared when it goes offline, so the media and attachment servers never accept a terminal
    connection on the strength of an ended session (docs/architecture.md "Terminal ports")."""
    await conn.execute(
        "INSERT INTO device_online_log (device_id, at, state, enterprise_id, reason, gateway_id,"
        " connection_id) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
        (device_id, at, int(online), enterprise_id, reason, gateway_id, connection_id))
    if applies and online:
        await conn.execute("UPDATE device SET state = %s, online_time = %s, session_address = %s"
                           " WHERE id = %s AND state <> 5",
                           (int(DeviceState.ONLINE), at, session_address, device_id))
    elif applies:
        await conn.execute("UPDATE device SET state = %s, offline_time = %s, session_address = NULL"
                           " WHERE id = %s AND state <> 5",
                           (int(DeviceState.OFFLINE), at, device_id))
