"""Where a terminal's current authenticated JT/T 808 session comes from (device.session_address).

The media server and the attachment server accept a terminal's connection only from this address
(the `address` policy, docs/architecture.md "Terminal ports"). The value is written by the streams
states agent from the `online` record's `peer` and cleared when that session goes offline."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection, Connection

SESSION_ADDRESS_SQL = "SELECT session_address FROM device WHERE id = %s AND record_state = 1"


def terminal_session_address(conn: Connection[Any], device_id: int) -> str | None:
    """The source IP of ``device_id``'s current authenticated session; None when it has none (offline,
    unknown or deleted device, or a session recorded before addresses were kept)."""
    row = conn.execute(SESSION_ADDRESS_SQL, (device_id,)).fetchone()
    return None if row is None else row[0]


async def terminal_session_address_async(conn: AsyncConnection[Any], device_id: int) -> str | None:
    """``terminal_session_address`` for an asyncio connection (the gateway's servers)."""
    cur = await conn.execute(SESSION_ADDRESS_SQL, (device_id,))
    row = await cur.fetchone()
    return None if row is None else row[0]
