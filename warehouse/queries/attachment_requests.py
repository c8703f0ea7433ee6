"""One-time alarm numbers of active-safety attachment requests (``alarm_attachment_request``, migration 0032).

The 32-character alarm number a 0x9208 carries (and the terminal repeats in its 0x1210) is NOT the alarm's
``warn_uuid``, which every alarm list shows: it is 16 random bytes in hex, made per request, kept only as
its sha256 with the alarm, the device the request went to and an expiry. ``issue_async`` (the streams
worker, in the transaction of the 0x9208 command row) makes one; ``find_async`` (the attachment server)
returns the request of a number, expired or not, so the caller can say why it refuses.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from psycopg import AsyncConnection, Connection
from psycopg.rows import dict_row

NUMBER_CHARS = 32  # BYTE[32] alarm number (报警编号) of 0x9208 / 0x1210


def new_number() -> str:
    """16 random bytes as 32 hex characters: as long as the wire field, unguessable."""
    return secrets.token_hex(NUMBER_CHARS // 2)


def digest(number: str) -> bytes:
    return hashlib.sha256(number.encode("ascii", errors="replace")).digest()


_PURGE = "DELETE FROM alarm_attachment_request WHERE alarm_id = %s AND expires_at < now()"
_ISSUE = """INSERT INTO alarm_attachment_request (alarm_id, device_id, number_sha256, expires_at)
            VALUES (%s, %s, %s, now() + make_interval(secs => %s))"""


async def issue_async(conn: AsyncConnection[Any], alarm_id: int, device_id: int, ttl_s: float) -> str:
    """A new alarm number for ``alarm_id`` sent to ``device_id``, valid ``ttl_s`` seconds; the alarm's expired
    numbers are deleted. Raises psycopg errors (e.g. a foreign key when the alarm or device is gone)."""
    number = new_number()
    await conn.execute(_PURGE, (alarm_id,))
    await conn.execute(_ISSUE, (alarm_id, device_id, digest(number), ttl_s))
    return number


def issue(conn: Connection[Any], alarm_id: int, device_id: int, ttl_s: float) -> str:
    """``issue_async`` for synchronous callers (tools, tests)."""
    number = new_number()
    conn.execute(_PURGE, (alarm_id,))
    conn.execute(_ISSUE, (alarm_id, device_id, digest(number), ttl_s))
    return number


_FIND = """
SELECT a.id AS alarm_id, a.warn_uuid, a.enterprise_id, a.device_id AS alarm_device_id, a.car_id, a.phone, a.type,
       a.start_time, a.alarm_no, q.device_id, d.phone AS device_phone, q.expires_at, q.expires_at <= now() AS expired
FROM alarm_attachment_request q
JOIN alarm a ON a.id = q.alarm_id
JOIN device d ON d.id = q.device_id
WHERE q.number_sha256 = %s
"""


async def find_async(conn: AsyncConnection[Any], number: str) -> dict[str, Any] | None:
    """The request of ``number`` joined with its alarm and device (``expired`` by the database clock), or None."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(_FIND, (digest(number),))
        return await cur.fetchone()

