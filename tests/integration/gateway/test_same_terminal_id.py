"""The lookup every successful registration makes (warehouse/queries/registration.py
devices_sharing_terminal_id_async): the other live devices of the enterprise known by the reported terminal
id, as serial or as registered id; answered from indexes, never by reading every device."""

from __future__ import annotations

import asyncio

import psycopg

from tests.integration.gateway.support import insert_devices, unique_phones
from warehouse.queries import registration


def test_devices_sharing_a_terminal_id_are_found_by_serial_and_by_registered_id(pg_url: str) -> None:
    phones = unique_phones(4)
    ids = insert_devices(pg_url, phones)
    me, by_serial, by_registered, other = (ids[p] for p in phones)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE device SET registered_terminal_id = 'T-SHARED' WHERE id = %s", (me,))
        conn.execute("UPDATE device SET device_sn = 'T-SHARED' WHERE id = %s", (by_serial,))
        conn.execute("UPDATE device SET registered_terminal_id = 'T-SHARED' WHERE id = %s", (by_registered,))
        conn.execute("UPDATE device SET registered_terminal_id = 'T-OTHER' WHERE id = %s", (other,))

    async def lookup() -> list[tuple[int, str]]:
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
            return await registration.devices_sharing_terminal_id_async(conn, me, "T-SHARED")

    found = asyncio.run(lookup())
    assert [device_id for device_id, _ in found] == sorted([by_serial, by_registered])

    with psycopg.connect(pg_url) as conn:  # a few rows here: only without the scans is the plan of a big table seen
        conn.execute("SET LOCAL enable_seqscan = off")
        plan = "\n".join(row[0] for row in conn.execute(
            "EXPLAIN " + registration._SAME_TERMINAL_ID, {"id": me, "terminal_id": "T-SHARED"}).fetchall())
    assert "Seq Scan" not in plan, plan
    assert "device_sn_live_idx" in plan or "device_registered_terminal_id_idx" in plan, plan  # migration 0044
