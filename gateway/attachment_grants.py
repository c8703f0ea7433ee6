"""Which alarm an attachment upload may write to, and for which terminal (the 0x1210 admission rule).

A 0x1210 is accepted only with the one-time alarm number of a 0x9208 the platform sent
(``warehouse/queries/attachment_requests.py``): known, not expired, and issued to the device whose phone
the 0x1210 header carries. The alarm's own ``warn_uuid`` is public (every alarm list shows it) and is no
longer accepted.

Under the terminal-address policy (``FLEET_ATTACHMENTS_REQUIRE_SESSION_ADDRESS``, on by default) the
connection's source IP must also equal the IP of that terminal's authenticated JT/T 808 session
(``device.session_address``, ``warehouse/queries/terminal_session.py``), so a number read off the wire or
a log is of no use from anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from warehouse.db import async_pool
from warehouse.queries import attachment_requests
from warehouse.queries.terminal_session import terminal_session_address_async


@dataclass(frozen=True)
class AlarmRef:
    """The alarm an upload belongs to (``alarm`` row) and its terminal."""

    alarm_id: int
    warn_uuid: str
    enterprise_id: int
    device_id: int
    car_id: int | None
    phone: str
    type: int
    start_time: datetime
    alarm_no: dict[str, Any] | None = None


@dataclass(frozen=True)
class UploadGrant:
    """A 0x9208's alarm number as the platform recorded it: its alarm, the device it was sent to (and that
    device's phone now), and whether it has expired."""

    alarm: AlarmRef
    device_id: int
    device_phone: str
    expired: bool


class AlarmLookup(Protocol):
    async def find(self, number: str) -> UploadGrant | None: ...

    async def session_address(self, device_id: int) -> str | None: ...


class PostgresAlarmLookup:
    """``AlarmLookup`` over ``alarm_attachment_request`` (migration 0032), on the attachment server's one
    pool (warehouse/db.py ``async_pool``)."""

    def __init__(self, database_url: str, *, pool_max: int = 2) -> None:
        self._pool = async_pool(database_url, min_size=1, max_size=pool_max, name="attachments")

    async def open(self) -> None:
        await self._pool.open()

    async def close(self) -> None:
        await self._pool.close()

    async def find(self, number: str) -> UploadGrant | None:
        async with self._pool.connection() as conn:
            row = await attachment_requests.find_async(conn, number)
        if row is None:
            return None
        alarm = AlarmRef(int(row["alarm_id"]), str(row["warn_uuid"]), int(row["enterprise_id"]),
                         int(row["alarm_device_id"]), row["car_id"], str(row["phone"]), int(row["type"]),
                         row["start_time"], row["alarm_no"])
        return UploadGrant(alarm, int(row["device_id"]), str(row["device_phone"]), bool(row["expired"]))

    async def session_address(self, device_id: int) -> str | None:
        async with self._pool.connection() as conn:
            return await terminal_session_address_async(conn, device_id)
