"""Table ``refused_registration`` (migration 0039): refused registrations / authentications of unknown
phones, written by the gateway (gateway/unknown_terminals.py), one row per phone, at most ``max_rows``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from psycopg import AsyncConnection


class Attempt(Protocol):
    phone: str
    msg_id: int
    result: int
    reason: str
    peer: str
    gateway_id: str
    protocol_version: str
    first_seen: Any
    last_seen: Any
    attempts: int
    terminal_id: str
    manufacturer_id: str
    terminal_model: str
    plate_number: str
    plate_color: int | None
    imei: str


COLUMNS = ("phone", "msg_id", "result", "reason", "peer", "gateway_id", "protocol_version", "first_seen",
           "last_seen", "attempts", "terminal_id", "manufacturer_id", "terminal_model", "plate_number",
           "plate_color", "imei")
# One row per phone: attempts add up, first seen stays, the rest is the last attempt's. A 0x0102 carries
# no terminal fields, so those of an earlier 0x0100 are kept (an empty value never replaces one), and the
# same for the IMEI, which only a 0x0102 carries.
_UPSERT = """
INSERT INTO refused_registration (phone, msg_id, result, reason, peer, gateway_id, protocol_version, first_seen,
                                  last_seen, attempts, terminal_id, manufacturer_id, terminal_model, plate_number,
                                  plate_color, imei)
SELECT * FROM unnest(%s::text[], %s::int[], %s::smallint[], %s::text[], %s::text[], %s::text[], %s::text[],
                     %s::timestamptz[], %s::timestamptz[], %s::bigint[], %s::text[], %s::text[], %s::text[],
                     %s::text[], %s::smallint[], %s::text[])
ON CONFLICT (phone) DO UPDATE SET
    msg_id = excluded.msg_id, result = excluded.result, reason = excluded.reason, peer = excluded.peer,
    gateway_id = excluded.gateway_id, protocol_version = excluded.protocol_version,
    first_seen = least(refused_registration.first_seen, excluded.first_seen),
    last_seen = greatest(refused_registration.last_seen, excluded.last_seen),
    attempts = refused_registration.attempts + excluded.attempts,
    terminal_id = coalesce(nullif(excluded.terminal_id, ''), refused_registration.terminal_id),
    manufacturer_id = coalesce(nullif(excluded.manufacturer_id, ''), refused_registration.manufacturer_id),
    terminal_model = coalesce(nullif(excluded.terminal_model, ''), refused_registration.terminal_model),
    plate_number = coalesce(nullif(excluded.plate_number, ''), refused_registration.plate_number),
    imei = coalesce(nullif(excluded.imei, ''), refused_registration.imei),
    plate_color = CASE WHEN excluded.msg_id = 256 THEN excluded.plate_color ELSE refused_registration.plate_color END
"""
# The cap: keep the max_rows phones seen most recently.
_TRIM = ("DELETE FROM refused_registration WHERE id IN (SELECT id FROM refused_registration "
         "ORDER BY last_seen DESC OFFSET %s)")


async def record_refusals(conn: AsyncConnection[Any], attempts: Sequence[Attempt], max_rows: int) -> None:
    """Upsert ``attempts`` (one per phone, in phone order so concurrent gateways lock in one order),
    then delete past ``max_rows``. Raises psycopg errors (the caller counts and drops the batch)."""
    if not attempts:
        return
    columns = [[getattr(a, c) for a in attempts] for c in COLUMNS]
    async with conn.transaction():
        await conn.execute(_UPSERT, columns)
        await conn.execute(_TRIM, (max_rows,))
